import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import type { JsonObject } from '../core/json';
import type { Sample } from '../core/sample';
import { scoreAsync } from '../core/score';
import type { AsyncVerifier, Services } from '../core/verifier';
import { agentStateConfigSection, agentStateService } from '../services/agent-state';
import { buildEnvironment, type AwmSchema, type AwmSeed } from '../services/agent-state/environment';
import { Sandbox, sandboxConfigSection } from '../services/sandbox';
import { agentState } from '../verifiers/agent_state';
import { heading, row, timed } from './timing';

/**
 * agent_state checks/s on this machine, one AgentWorldModel-style task (a modification task that
 * compares the initial and final databases) three ways, in one run:
 * - a bare loop of `python3 -c` processes, one loop per core, no sandbox: each writes both databases,
 *   integrity-checks the final one and runs the task's two queries — the baseline every ratio divides by;
 * - the verifier on a task of AWM release files: the environment's initial database built once, each
 *   sample carrying only its final state;
 * - the verifier on an inline task, each sample carrying its initial state too (today's way).
 */

const PYTHON = '/usr/bin/python3';
const SCHEMA: AwmSchema = {
  tables: [
    { name: 'users', ddl: 'CREATE TABLE users (id INTEGER PRIMARY KEY, username TEXT NOT NULL, created_at DATETIME DEFAULT CURRENT_TIMESTAMP);' },
    { name: 'follows', ddl: 'CREATE TABLE follows (user_id INTEGER NOT NULL REFERENCES users(id), artist_id INTEGER NOT NULL, PRIMARY KEY (user_id, artist_id));', indexes: ['CREATE INDEX idx_follows_artist ON follows(artist_id);'] },
  ],
};
const SEED: AwmSeed = {
  tables: [
    { table_name: 'users', insert_statements: Array.from({ length: 50 }, (_, k) => `INSERT INTO users (id, username, created_at) VALUES (${k + 1}, 'user${k + 1}', datetime('now', '-${k} days'));`) },
    { table_name: 'follows', insert_statements: Array.from({ length: 200 }, (_, k) => `INSERT INTO follows VALUES (${(k % 50) + 1}, ${100 + k});`) },
  ],
};
const QUERY = 'SELECT count(*) FROM follows WHERE user_id = 1 AND artist_id = 3';
const VERIFY = `def verify_task_completion(initial_db_path, final_db_path, final_answer=None):\n    q = '${QUERY}'\n    before = sqlite3.connect('file:%s?mode=ro' % initial_db_path, uri=True).execute(q).fetchone()[0]\n    after = sqlite3.connect('file:%s?mode=ro' % final_db_path, uri=True).execute(q).fetchone()[0]\n    return {'result': 'complete' if before == 0 and after == 1 else 'others'}\n`;

/** One bare check: a fresh python3 that writes both databases, checks the final one and runs the queries. */
function bareCheck(dir: string, initial: string, final: string): Promise<void> {
  const script = [
    'import base64, sqlite3',
    `open(${JSON.stringify(path.join(dir, 'i.db'))}, 'wb').write(base64.b64decode(${JSON.stringify(initial)}))`,
    `open(${JSON.stringify(path.join(dir, 'f.db'))}, 'wb').write(base64.b64decode(${JSON.stringify(final)}))`,
    `i = sqlite3.connect(${JSON.stringify(path.join(dir, 'i.db'))})`,
    `f = sqlite3.connect(${JSON.stringify(path.join(dir, 'f.db'))})`,
    "assert f.execute('PRAGMA integrity_check').fetchone()[0] == 'ok'",
    `assert i.execute(${JSON.stringify(QUERY)}).fetchone()[0] == 0 and f.execute(${JSON.stringify(QUERY)}).fetchone()[0] == 1`,
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ['-c', script], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (status) => (status === 0 ? resolve() : reject(new Error(`bare check exited ${status}`))));
  });
}

async function rate(services: Services, sample: (i: number) => Sample, checks: number, lanes: number): Promise<{ perSecond: number; passed: number }> {
  const scoreOne = (i: number) => scoreAsync(agentState as AsyncVerifier, sample(i), { signal: new AbortController().signal, services, compute: async () => null });
  for (let i = 0; i < 30; i++) await scoreOne(i);
  let passed = 0;
  const run = await timed(async () => {
    await Promise.all(
      Array.from({ length: lanes }, async (_, lane) => {
        for (let k = lane; k < checks; k += lanes) {
          const outcome = await scoreOne(k);
          if (outcome.status === 'OK' && outcome.reward === 1) passed++;
        }
      }),
    );
  });
  return { perSecond: checks / run.seconds, passed };
}

export async function run(): Promise<void> {
  const cores = availableParallelism();
  heading(`agent_state: checks/s of an AWM task, the verifier on ${cores} warm sandbox slots vs a bare python3 -c sqlite check loop per core`);
  const dir = mkdtempSync(path.join(tmpdir(), 'verdict-bench-agent-'));
  const initial = buildEnvironment(SCHEMA, SEED, '2026-01-01 00:00:00').sqlite;
  const db = new Database(Buffer.from(initial, 'base64'));
  db.exec('INSERT INTO follows VALUES (1, 3);');
  const final = db.serialize().toString('base64');
  db.close();

  const BARE = 200;
  const bare = await timed(async () => {
    await Promise.all(
      Array.from({ length: cores }, async (_, lane) => {
        const laneDir = mkdtempSync(path.join(dir, `bare-${lane}-`));
        for (let k = lane; k < BARE; k += cores) await bareCheck(laneDir, initial, final);
      }),
    );
  });
  const bareRate = BARE / bare.seconds;

  // AWM release files in its layout: one environment, one task.
  const files = { verifiers: path.join(dir, 'gen_verifier.pure_code.jsonl'), db: path.join(dir, 'gen_db.jsonl'), sample: path.join(dir, 'gen_sample.jsonl') };
  writeFileSync(files.verifiers, JSON.stringify({ scenario: 'music_bench', task_idx: 0, task: 'Follow artist 3.', verification: { code: VERIFY } }) + '\n');
  writeFileSync(files.db, JSON.stringify({ scenario: 'music_bench', db_schema: SCHEMA }) + '\n');
  writeFileSync(files.sample, JSON.stringify({ scenario: 'music_bench', sample_data: SEED }) + '\n');
  const sandbox = await Sandbox.start(sandboxConfigSection.parse({ workers: cores }));
  const services: Services = { sandbox, agentState: agentStateService(agentStateConfigSection.parse({ tasks: [{ awm: files }] })) };
  const sample = (label: JsonObject, metadata: JsonObject) => (i: number): Sample => ({ id: `a${i}`, verifier: 'agent_state', response: 'Followed.', label, groupId: '', responseTokens: 0, metadata });
  const CHECKS = 1000;
  const builtSample = sample({ taskId: 'music_bench.0' }, { finalState: { sqlite: final } });
  const perSampleSample = sample({ task: { id: 'music_bench.0', code: VERIFY, entry: 'verify_task_completion' } }, { initialState: { sqlite: initial }, finalState: { sqlite: final } });
  // Alternated, the better of two each: the least disturbed by other work on a shared machine.
  const better = (a: { perSecond: number; passed: number }, b: { perSecond: number; passed: number }) => (a.perSecond >= b.perSecond ? a : b);
  let built = await rate(services, builtSample, CHECKS, 4 * cores);
  let perSample = await rate(services, perSampleSample, CHECKS, 4 * cores);
  built = better(built, await rate(services, builtSample, CHECKS, 4 * cores));
  perSample = better(perSample, await rate(services, perSampleSample, CHECKS, 4 * cores));
  await sandbox.close();

  const widths = [84, 10, 26];
  process.stdout.write(row(['path', 'checks/s', 'vs bare loop (÷ its checks/s)'], widths) + '\n');
  process.stdout.write(row([`bare python3 -c per check, ${cores} loops (${BARE} checks)`, bareRate.toFixed(1), '1.00×'], widths) + '\n');
  process.stdout.write(row([`verifier, AWM task: initial state built once per environment (${CHECKS}, ${built.passed} passed)`, built.perSecond.toFixed(1), `${(built.perSecond / bareRate).toFixed(2)}×`], widths) + '\n');
  process.stdout.write(row([`verifier, inline task: initial state sent with every sample (${CHECKS}, ${perSample.passed} passed)`, perSample.perSecond.toFixed(1), `${(perSample.perSecond / bareRate).toFixed(2)}×`], widths) + '\n');
  process.stdout.write(`  built once ÷ sent per sample (checks/s, this run): ${(built.perSecond / perSample.perSecond).toFixed(2)}×\n`);
}
