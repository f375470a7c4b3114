import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Json, JsonObject } from '../../core/json';
import type { Outcome, Sample } from '../../core/sample';
import { scoreAsync } from '../../core/score';
import type { AsyncVerifier, Services } from '../../core/verifier';
import { agentStateConfigSection, agentStateService } from '../../services/agent-state';
import type { Sandbox } from '../../services/sandbox';
import { agentState } from '../../verifiers/agent_state';
import { never, startSandbox } from '../sandbox/helpers';

const FIXTURES = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'agent-state');
const SCHEMA = readFileSync(path.join(FIXTURES, 'music.sql'), 'utf8');
const dir = mkdtempSync(path.join(tmpdir(), 'verdict-agent-state-'));
let files = 0;

/** A real SQLite file of the music environment after `change` (SQL), as base64. */
function state(change = ''): { sqlite: string } {
  const file = path.join(dir, `s${files++}.db`);
  const db = new Database(file);
  db.exec(SCHEMA + change);
  db.close();
  return { sqlite: readFileSync(file).toString('base64') };
}

const CREATE = "INSERT INTO playlists VALUES (2, 1, 'Road Trip'); INSERT INTO playlist_tracks VALUES (2, 1, 2), (2, 2, 3);";

describe('agent_state verifier (real sandbox, real SQLite)', () => {
  let sandbox: Sandbox;
  let services: Services;
  beforeAll(async () => {
    sandbox = await startSandbox({ limits: { cpuMs: 2000, memoryMb: 512 } });
    services = { sandbox, agentState: agentStateService(agentStateConfigSection.parse({ taskDir: path.join(FIXTURES, 'tasks'), maxStateMb: 1, cpuMs: 1500 })) };
  });
  afterAll(() => sandbox.close());

  const score = (label: JsonObject, metadata: JsonObject, withServices: Services = services): Promise<Outcome> => {
    const sample: Sample = { id: 's', verifier: 'agent_state', response: 'done', label, groupId: '', responseTokens: 0, metadata };
    return scoreAsync(agentState as AsyncVerifier, sample, { signal: never, services: withServices, compute: async () => null });
  };
  const task = (id: string) => ({ taskId: id });

  it('rewards a final state the task\'s verification accepts, and gives its reason for one it rejects', async () => {
    expect(await score(task('create_playlist'), { finalState: state(CREATE) })).toMatchObject({ status: 'OK', reward: 1, reason: 'passed', details: { task: 'create_playlist', why: 'playlist created' } });
    const wrongOrder = "INSERT INTO playlists VALUES (2, 1, 'Road Trip'); INSERT INTO playlist_tracks VALUES (2, 1, 3), (2, 2, 2);";
    expect(await score(task('create_playlist'), { finalState: state(wrongOrder) })).toMatchObject({ status: 'OK', reward: 0, reason: 'failed', details: { why: 'tracks [3, 2], expected [2, 3]' } });
    expect(await score(task('create_playlist'), { finalState: state() })).toMatchObject({ reward: 0, details: { why: "0 playlists named 'Road Trip'" } });
  });

  it('accepts a plain bool, an SQL dump as the state, and an inline task', async () => {
    expect(await score(task('follow_artist'), { finalState: state('INSERT INTO follows VALUES (2, 3);') })).toMatchObject({ reward: 1 });
    expect(await score(task('follow_artist'), { finalState: { sql: SCHEMA + 'INSERT INTO follows VALUES (2, 3);' } })).toMatchObject({ reward: 1 });
    expect(await score(task('follow_artist'), { finalState: { sql: SCHEMA } })).toMatchObject({ reward: 0, reason: 'failed' });
    const inline = { task: { id: 'tiny', code: 'def verify(i, f, p):\n    return p["want"] == 3', params: { want: 3 } } };
    expect(await score(inline, { finalState: state() })).toMatchObject({ reward: 1 });
  });

  it('compares against the initial state when the task needs it', async () => {
    const initialState = state();
    expect(await score(task('remove_track'), { initialState, finalState: state('DELETE FROM playlist_tracks WHERE track_id = 1;') })).toMatchObject({ reward: 1 });
    expect(await score(task('remove_track'), { initialState, finalState: state("DELETE FROM playlist_tracks WHERE track_id = 1; UPDATE users SET plan = 'free';") })).toMatchObject({ reward: 0, details: { why: 'users changed' } });
  });

  it('gives 0, not INVALID, for a state that is not a database, is damaged, lost a table or is too large', async () => {
    const garbage = { sqlite: Buffer.from('this is not a database at all, just bytes'.repeat(200)).toString('base64') };
    expect(await score(task('create_playlist'), { finalState: garbage })).toMatchObject({ status: 'OK', reward: 0, reason: 'corrupt_state' });
    const good = Buffer.from(state(CREATE).sqlite, 'base64');
    const truncated = { sqlite: good.subarray(0, Math.floor(good.length / 2)).toString('base64') };
    expect(await score(task('create_playlist'), { finalState: truncated })).toMatchObject({ reward: 0, reason: 'corrupt_state' });
    const damaged = Buffer.from(good);
    // Page 1 past its 100-byte header: the b-tree of sqlite_master itself.
    for (let k = 100; k < 400; k++) damaged[k] = 0xff;
    expect(await score(task('create_playlist'), { finalState: { sqlite: damaged.toString('base64') } })).toMatchObject({ reward: 0, reason: 'corrupt_state' });
    expect(await score(task('create_playlist'), { finalState: { sql: 'CREATE TABLE broken (' } })).toMatchObject({ reward: 0, reason: 'corrupt_state' });
    expect(await score(task('remove_track'), { initialState: state(), finalState: state('DROP TABLE follows;') })).toMatchObject({ reward: 0, reason: 'schema_changed', details: { tables: ['follows'] } });
    const huge = state(`CREATE TABLE pad (x BLOB); INSERT INTO pad VALUES (zeroblob(${2 << 20}));`);
    expect(await score(task('create_playlist'), { finalState: huge })).toMatchObject({ reward: 0, reason: 'state_too_large' });
    // An SQL dump that never ends loading is the policy's too.
    const endless = { sql: 'CREATE TABLE t (x); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) INSERT INTO t SELECT x FROM c;' };
    expect(await score(task('create_playlist'), { finalState: endless })).toMatchObject({ status: 'OK', reward: 0 });
  });

  it('makes a crashing or misbehaving verification INVALID naming the task, and a hang a contained 0', async () => {
    const run = (code: string) => score({ task: { id: 'bad', code } }, { finalState: state() });
    expect(await run('def verify(i, f, p):\n    raise KeyError("user_id")')).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^task bad: the verification raised .*KeyError/) });
    expect(await run('def verify(i, f, p):\n    return "yes"')).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^task bad: the verification returned "yes"/) });
    // AgentWorldModel's verdict must be one of its two words: anything else is the task's defect, not a 0.
    expect(await run('def verify(i, f, p):\n    return {"result": "Complete"}')).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^task bad: the verification returned \{"result":"Complete"\}/) });
    expect(await run('def verify(i, f, p)\n    return True')).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^task bad: the verification code does not load/) });
    expect(await run('def other(i, f, p):\n    return True')).toMatchObject({ status: 'INVALID', reason: 'task bad: no function "verify" in its verification code' });
    expect(await run('def verify(i, f, p):\n    while True:\n        pass')).toMatchObject({ status: 'OK', reward: 0, reason: 'verification_limit', details: { limit: 'time' } });
    // The sandbox is still healthy afterwards.
    expect(await score(task('follow_artist'), { finalState: state('INSERT INTO follows VALUES (2, 3);') })).toMatchObject({ reward: 1 });
  });

  it('contains verification code that tries to escape: no host files, no network, no writing the state', async () => {
    const code = [
      'import os, socket, sqlite3',
      'def verify(i, f, p):',
      '    got = []',
      '    for path in [' + JSON.stringify(path.join(FIXTURES, 'music.sql')) + ', "/root/.bashrc", "/etc/shadow"]:',
      '        try:',
      '            open(path).read(1); got.append("read " + path)',
      '        except OSError as e:',
      '            pass',
      '    try:',
      '        socket.create_connection(("1.1.1.1", 53), timeout=1); got.append("network")',
      '    except OSError:',
      '        pass',
      '    try:',
      '        sqlite3.connect(f).execute("DELETE FROM users").connection.commit(); got.append("wrote the state")',
      '    except sqlite3.Error:',
      '        pass',
      '    return {"passed": bool(got), "reason": ", ".join(got) or "contained"}',
    ].join('\n');
    expect(await score({ task: { id: 'escape', code } }, { finalState: state() })).toMatchObject({ status: 'OK', reward: 0, details: { why: 'contained' } });
  });

  it('says INVALID naming the field for a malformed sample, and ABORTED when a service is missing', async () => {
    expect(await score(task('create_playlist'), {})).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^metadata\.finalState: required/) });
    expect(await score(task('create_playlist'), { finalState: { sqlite: 'not base64!' } })).toMatchObject({ status: 'INVALID', reason: 'metadata.finalState.sqlite: not standard base64' });
    expect(await score(task('create_playlist'), { finalState: { db: 'x' } })).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^metadata\.finalState: expected exactly one of/) });
    expect(await score(task('nope'), { finalState: state() })).toMatchObject({ status: 'INVALID', reason: 'label.taskId: no task "nope" in agentState\'s task sources' });
    expect(await score(task('../tasks/create_playlist'), { finalState: state() })).toMatchObject({ status: 'INVALID' });
    expect(await score(task('create_playlist'), { finalState: state() }, { sandbox })).toMatchObject({ status: 'ABORTED', reason: 'service_unavailable', details: { service: 'agentState.tasks' } });
    expect(await score({ task: { id: 't', code: 'def verify(i,f,p):\n    return True' } }, { finalState: state() }, {})).toMatchObject({ status: 'ABORTED', reason: 'service_unavailable', details: { service: 'sandbox' } });
  });

  it('ABORTS, never scores, when the sandbox itself fails', async () => {
    const closed = await startSandbox();
    await closed.close();
    const outcome = await score(task('follow_artist'), { finalState: state('INSERT INTO follows VALUES (2, 3);') }, { ...services, sandbox: closed });
    expect(outcome.status).toBe('ABORTED');
  });
});

export type { Json };
