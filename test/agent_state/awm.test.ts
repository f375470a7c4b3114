import Database from 'better-sqlite3';
import { stateAfter } from './states';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { JsonObject } from '../../core/json';
import type { AgentTask } from '../../core/ports/agent-state';
import type { Outcome, Sample } from '../../core/sample';
import { scoreAsync } from '../../core/score';
import type { AsyncVerifier, Services } from '../../core/verifier';
import { agentStateConfigSection, agentStateService, AwmReleaseError } from '../../services/agent-state';
import { createServices } from '../../services/bootstrap';
import { ConfigError, parseConfig } from '../../services/config';
import { awmEntry, normalizeScenario, readAwmRelease } from '../../services/agent-state/awm';
import { buildEnvironment, environmentBuilds, withClock, type AwmSchema, type AwmSeed } from '../../services/agent-state/environment';
import type { Sandbox } from '../../services/sandbox';
import { agentState } from '../../verifiers/agent_state';
import { never, startSandbox } from '../sandbox/helpers';

/** Fixtures in AgentWorldModel's release layout: two environments, five tasks. */
const AWM = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'agent_state', 'awm');
const FILES = { verifiers: path.join(AWM, 'gen_verifier.pure_code.jsonl'), db: path.join(AWM, 'gen_db.jsonl'), sample: path.join(AWM, 'gen_sample.jsonl') };
const jsonl = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as JsonObject);
const environment = (name: string) => ({
  schema: jsonl(FILES.db).find((l) => l.scenario === name)!.db_schema as unknown as AwmSchema,
  seed: jsonl(FILES.sample).find((l) => l.scenario === name)!.sample_data as unknown as AwmSeed,
});
const query = (sqlite: string, sql: string) => {
  const db = new Database(Buffer.from(sqlite, 'base64'));
  try {
    return db.prepare(sql).raw().all();
  } finally {
    db.close();
  }
};

describe('AgentWorldModel environments: the initial database built from schema and seed data', () => {
  it('reads "now" as the reference time (UTC), in datetime() calls and CURRENT_TIMESTAMP defaults alike', () => {
    const { schema, seed } = environment('clinic_booking_3');
    const built = buildEnvironment(schema, seed, '2026-01-01 00:00:00');
    expect(query(built.sqlite, 'SELECT id, scheduled_at, created_at, updated_at FROM appointments ORDER BY id')).toEqual([
      [1, '2025-12-22 09:00:00', '2025-12-12 00:00:00', '2026-01-01 00:00:00'],
      [2, '2026-01-03 14:00:00', '2025-12-31 00:00:00', '2026-01-01 00:00:00'],
      [3, '2026-02-01 10:00:00', '2026-01-01 00:00:00', '2026-01-01 00:00:00'],
    ]);
    expect(query(built.sqlite, 'SELECT created_at FROM patients')).toEqual([['2024-01-01 00:00:00']]);
    // Another reference time is another database, at another address.
    const later = buildEnvironment(schema, seed, '2026-06-15 12:30:00');
    expect(later.key).not.toBe(built.key);
    expect(query(later.sqlite, 'SELECT scheduled_at FROM appointments WHERE id = 2')).toEqual([['2026-06-17 14:00:00']]);
  });

  it('builds one environment once per process: the same input is the same address and the same bytes', () => {
    const { schema, seed } = environment('music_streaming_7');
    const first = buildEnvironment(schema, seed, '2026-01-01 00:00:00');
    const builds = environmentBuilds();
    const again = buildEnvironment(JSON.parse(JSON.stringify(schema)) as AwmSchema, JSON.parse(JSON.stringify(seed)) as AwmSeed, '2026-01-01 00:00:00');
    expect(again).toBe(first);
    expect(environmentBuilds()).toBe(builds);
    // AWM's reset skips a seed row its foreign keys refuse (track 99 does not exist): so does the build.
    expect(first.skipped).toEqual({ tables: 0, statements: 1 });
    expect(query(first.sqlite, 'SELECT count(*) FROM playlist_tracks')).toEqual([[3]]);
    expect(query(first.sqlite, "SELECT username, created_at FROM users ORDER BY id")).toEqual([['current_user', '2024-11-27 00:00:00'], ['other_user', '2026-01-01 00:00:00']]);
    // Another process (a replica), in another time zone and at another hour, builds the same bytes.
    const script = `const { buildEnvironment } = require(${JSON.stringify(require.resolve('../../services/agent-state/environment'))});
      const [schema, seed] = JSON.parse(require('fs').readFileSync(0, 'utf8'));
      process.stdout.write(buildEnvironment(schema, seed, '2026-01-01 00:00:00').sqlite);`;
    const replica = execFileSync(process.execPath, ['-e', script], { input: JSON.stringify([schema, seed]), env: { ...process.env, TZ: 'Pacific/Kiritimati' }, encoding: 'utf8', maxBuffer: 1 << 26 });
    expect(replica).toBe(first.sqlite);
  });

  it('rewrites the CURRENT_* keywords only where SQL reads them, and local time is UTC', () => {
    expect(withClock("INSERT INTO t VALUES ('CURRENT_TIMESTAMP', CURRENT_TIMESTAMP, \"CURRENT_DATE\") -- CURRENT_TIME")).toBe(
      "INSERT INTO t VALUES ('CURRENT_TIMESTAMP', (datetime('now')), \"CURRENT_DATE\") -- CURRENT_TIME",
    );
    expect(withClock("CREATE TABLE t (d DATE DEFAULT current_date, s TEXT DEFAULT 'it''s CURRENT_TIME')")).toBe("CREATE TABLE t (d DATE DEFAULT (date('now')), s TEXT DEFAULT 'it''s CURRENT_TIME')");
    const schema: AwmSchema = { tables: [{ name: 't', ddl: 'CREATE TABLE t (a TEXT, b TEXT, c INTEGER, d TEXT, e TEXT);' }] };
    const seed: AwmSeed = { tables: [{ table_name: 't', insert_statements: ["INSERT INTO t VALUES (datetime('now', 'localtime'), date(), strftime('%s', 'now'), time('now', '+90 minutes'), datetime('2020-02-02 02:02:02', '+1 day'));"] }] };
    expect(query(buildEnvironment(schema, seed, '2026-01-01 00:00:00').sqlite, 'SELECT * FROM t')).toEqual([['2026-01-01 00:00:00', '2026-01-01', 1767225600, '01:30:00', '2020-02-03 02:02:02']]);
  });
});

describe('AgentWorldModel release files as a task source', () => {
  it('numbers tasks <environment>.<task_idx> and picks the function name as AWM\'s runner does', () => {
    const release = readAwmRelease(FILES);
    expect([...release.tasks.keys()].sort()).toEqual(['clinic_booking_3.0', 'clinic_booking_3.1', 'music_streaming_7.0', 'music_streaming_7.1', 'music_streaming_7.2']);
    expect(release.tasks.get('music_streaming_7.2')).toMatchObject({ environment: 'music_streaming_7', entry: 'verify_plan_change' });
    expect(awmEntry('import re\ndef helper():\n    pass\n')).toBe('verify_task_completion');
    expect(normalizeScenario('E-Commerce  Store (33)')).toBe('e_commerce_store_33');
  });

  it('refuses a release line it cannot read, naming the file and line', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'verdict-awm-'));
    const verifiers = path.join(dir, 'gen_verifier.pure_code.jsonl');
    writeFileSync(verifiers, readFileSync(FILES.verifiers, 'utf8') + '{"scenario": "x", "task_idx": "zero", "verification": {}}\n{not json\n');
    let error: unknown;
    try {
      agentStateService(agentStateConfigSection.parse({ tasks: [{ awm: { ...FILES, verifiers } }] }));
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(AwmReleaseError);
    expect((error as AwmReleaseError).problems).toEqual([expect.stringMatching(/gen_verifier\.pure_code\.jsonl:6: task_idx: /), expect.stringMatching(/gen_verifier\.pure_code\.jsonl:7: not valid JSON/)]);
    // At start-up, every problem is a config problem naming the key, the file and the line.
    const config = parseConfig({ agentState: { tasks: [{ awm: { ...FILES, verifiers } }, { dir: path.join(dir, 'nowhere') }] } }, 'verdict.yaml');
    const problems = await createServices(config).then(
      () => [],
      (thrown: unknown) => (thrown instanceof ConfigError ? thrown.problems : [String(thrown)]),
    );
    expect(problems).toEqual([
      expect.stringMatching(/^verdict\.yaml\.agentState\.tasks\[1\]\.dir: .*nowhere is not a folder$/),
      expect.stringMatching(/^verdict\.yaml\.agentState\.tasks: .*gen_verifier\.pure_code\.jsonl:6: task_idx: /),
      expect.stringMatching(/^verdict\.yaml\.agentState\.tasks: .*gen_verifier\.pure_code\.jsonl:7: not valid JSON/),
    ]);
  });
});

describe('agent_state on AgentWorldModel tasks (real sandbox, real SQLite)', () => {
  let sandbox: Sandbox;
  let services: Services;
  const initialOf: Record<string, string> = {};
  beforeAll(async () => {
    sandbox = await startSandbox({ limits: { cpuMs: 2000, memoryMb: 512 } });
    const port = agentStateService(agentStateConfigSection.parse({ tasks: [{ awm: FILES }], cpuMs: 1500 }));
    services = { sandbox, agentState: port };
    for (const id of ['music_streaming_7.0', 'clinic_booking_3.0']) {
      const found = await port.task(id);
      initialOf[id.split('.')[0]!] = (found as { task: AgentTask }).task.initialState!.sqlite;
    }
  });
  afterAll(() => sandbox.close());

  /** The environment's initial database after `change`: what the episode's environment left. */
  const after = (env: string, change: string) => stateAfter(initialOf[env]!, change, { foreignKeys: false });
  const score = (label: JsonObject, metadata: JsonObject, response = 'Done.'): Promise<Outcome> => {
    const sample: Sample = { id: 's', verifier: 'agent_state', response, label, groupId: '', responseTokens: 0, metadata };
    return scoreAsync(agentState as AsyncVerifier, sample, { signal: never, services, compute: async () => null });
  };
  const MUSIC = 'music_streaming_7';
  const ROAD_TRIP = "INSERT INTO playlists (id, user_id, name) VALUES (2, 1, 'Road Trip'); INSERT INTO playlist_tracks VALUES (2, 3, 1), (2, 2, 2);";

  it('runs a modification task against its environment\'s initial database: the sample carries only its final state', async () => {
    expect(await score({ taskId: 'music_streaming_7.0' }, { finalState: after(MUSIC, ROAD_TRIP) })).toMatchObject({ status: 'OK', reward: 1, reason: 'passed', details: { task: 'music_streaming_7.0', why: 'complete' } });
    expect(await score({ taskId: 'music_streaming_7.0' }, { finalState: after(MUSIC, '') })).toMatchObject({ status: 'OK', reward: 0, reason: 'failed', details: { why: 'others' } });
    // A sample's own initial state wins over the built one: here one that already has the playlist.
    expect(await score({ taskId: 'music_streaming_7.0' }, { initialState: after(MUSIC, ROAD_TRIP), finalState: after(MUSIC, ROAD_TRIP) })).toMatchObject({ reward: 0 });
    expect(await score({ taskId: 'music_streaming_7.9' }, { finalState: after(MUSIC, '') })).toMatchObject({ status: 'INVALID', reason: 'label.taskId: no task "music_streaming_7.9" in agentState\'s task sources' });
  });

  it('passes the final answer by name, from after the last </think>: a right state with a wrong answer is 0', async () => {
    const unchanged = after(MUSIC, '');
    const label = { taskId: 'music_streaming_7.1' };
    expect(await score(label, { finalState: unchanged }, 'Your Chill playlist has 3 tracks, about 11 minutes in all.')).toMatchObject({ reward: 1 });
    // The false reward the old convention gave: the state is right, the answer contradicts it.
    expect(await score(label, { finalState: unchanged }, 'Your Chill playlist has 4 tracks, about 11 minutes in all.')).toMatchObject({ status: 'OK', reward: 0 });
    // Reasoning is not the answer: only the text after the last </think> is.
    expect(await score(label, { finalState: unchanged }, '<think>It has 3 tracks, 11 min.</think>\n\nIt has 4 tracks, 11 minutes long.')).toMatchObject({ reward: 0 });
    expect(await score(label, { finalState: unchanged }, '<think>maybe 4 tracks?</think>\n\n3 tracks, 11 min.')).toMatchObject({ reward: 1 });
    expect(await score(label, { finalState: unchanged }, '<think>It has 3 tracks, 11 min, so I will say')).toMatchObject({ reward: 0 });
  });

  it('calls a function that names none of AWM\'s arguments by position, with sqlite3 in its namespace as AWM\'s runner has it', async () => {
    expect(await score({ taskId: 'music_streaming_7.2' }, { finalState: after(MUSIC, "UPDATE users SET plan = 'family' WHERE id = 1;") })).toMatchObject({ status: 'OK', reward: 1 });
    expect(await score({ taskId: 'music_streaming_7.2' }, { finalState: after(MUSIC, '') })).toMatchObject({ status: 'OK', reward: 0 });
  });

  it('verifies against seed data timed from the reference time, in the state and in the answer', async () => {
    expect(await score({ taskId: 'clinic_booking_3.0' }, { finalState: after('clinic_booking_3', "UPDATE appointments SET status = 'cancelled' WHERE id = 2;") })).toMatchObject({ reward: 1 });
    expect(await score({ taskId: 'clinic_booking_3.0' }, { finalState: after('clinic_booking_3', "UPDATE appointments SET status = 'cancelled' WHERE id IN (2, 3);") })).toMatchObject({ reward: 0 });
    const unchanged = after('clinic_booking_3', '');
    expect(await score({ taskId: 'clinic_booking_3.1' }, { finalState: unchanged }, 'Your next appointment with Dr. Ada Moss is on 2026-02-01 at 10:00.')).toMatchObject({ reward: 1 });
    expect(await score({ taskId: 'clinic_booking_3.1' }, { finalState: unchanged }, 'It is on 2026-02-02 at 10:00.')).toMatchObject({ reward: 0 });
    // That task's SQL asks for appointments after datetime('now'): the reference time, not today.
    // With the sample's own initial state, "now" is the real clock again: the appointment is past.
    expect(await score({ taskId: 'clinic_booking_3.1' }, { initialState: { sqlite: initialOf.clinic_booking_3! }, finalState: unchanged }, 'Your next appointment with Dr. Ada Moss is on 2026-02-01 at 10:00.')).toMatchObject({ reward: Date.now() < Date.parse('2026-02-01T10:00:00Z') ? 1 : 0 });
  });

  it('gives 0 schema_changed for a reshaping SQLite hides from table_info: a generated column, WITHOUT ROWID, a view for a table', async () => {
    const reshaped = {
      generated: "ALTER TABLE tracks ADD COLUMN minutes INTEGER GENERATED ALWAYS AS (duration_sec / 60) VIRTUAL;",
      withoutRowid:
        'CREATE TABLE pt (playlist_id INTEGER NOT NULL REFERENCES playlists(id) ON DELETE CASCADE, track_id INTEGER NOT NULL REFERENCES tracks(id), position INTEGER NOT NULL, PRIMARY KEY (playlist_id, track_id)) WITHOUT ROWID; INSERT INTO pt SELECT * FROM playlist_tracks; DROP TABLE playlist_tracks; ALTER TABLE pt RENAME TO playlist_tracks;',
      view: 'CREATE TABLE users_data AS SELECT * FROM users; DROP TABLE users; CREATE VIEW users AS SELECT * FROM users_data;',
    };
    const tables = { generated: ['tracks'], withoutRowid: ['playlist_tracks'], view: ['users'] };
    for (const [name, change] of Object.entries(reshaped)) {
      expect(await score({ taskId: 'music_streaming_7.0' }, { finalState: after(MUSIC, ROAD_TRIP + change) })).toMatchObject({ status: 'OK', reward: 0, reason: 'schema_changed', details: { tables: tables[name as keyof typeof tables] } });
    }
  });

  it('says INVALID naming metadata.initialState when AWM\'s convention needs an initial state the sample lacks', async () => {
    const code = readAwmRelease(FILES).tasks.get('music_streaming_7.0') as { code: string };
    const inline = { task: { id: 'road-trip', code: code.code, entry: 'verify_task_completion' } };
    expect(await score(inline, { finalState: after(MUSIC, ROAD_TRIP) })).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^metadata\.initialState: required: task road-trip's verification takes initial_db_path/) });
    expect(await score(inline, { initialState: { sqlite: initialOf[MUSIC]! }, finalState: after(MUSIC, ROAD_TRIP) })).toMatchObject({ status: 'OK', reward: 1 });
    // A function that takes only the final state and the answer needs no initial one.
    const answerOnly = { task: { id: 'answer', code: 'def verify_answer(final_db_path, final_answer):\n    return {"result": "complete" if re.search(r"\\b3 tracks", final_answer) else "others"}\n', entry: 'verify_answer' } };
    expect(await score(answerOnly, { finalState: after(MUSIC, '') }, '3 tracks')).toMatchObject({ reward: 1 });
    // Verdict's own convention is unchanged: positional (initial, final, params), no initial state needed.
    const own = { task: { id: 'own', code: 'def verify(initial_db_path, final_db_path, params):\n    return initial_db_path is None and params == {"n": 1}\n', params: { n: 1 } } };
    expect(await score(own, { finalState: after(MUSIC, '') })).toMatchObject({ reward: 1 });
  });
});
