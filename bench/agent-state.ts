import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import type { Sample } from '../core/sample';
import { scoreAsync } from '../core/score';
import type { AsyncVerifier } from '../core/verifier';
import { Sandbox, sandboxConfigSection } from '../services/sandbox';
import { agentState } from '../verifiers/agent_state';
import { heading, row, timed } from './timing';

/**
 * agent_state checks/s on this machine: the verifier (warm sandbox slots, the state decoded,
 * integrity-checked and compared with the initial one, the task's function called) beside a bare
 * loop of `python3 -c` processes that each write the same database and run the same query, one
 * loop per core, no sandbox. The ratio divides Verdict's checks/s by the bare loop's.
 */

const PYTHON = '/usr/bin/python3';
const SCHEMA =
  "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE follows (user_id INTEGER, artist_id INTEGER); INSERT INTO users VALUES (2, 'lin'); INSERT INTO follows VALUES (2, 3);";
const VERIFY = "import sqlite3\ndef verify(i, f, p):\n    con = sqlite3.connect('file:%s?mode=ro' % f, uri=True)\n    return con.execute('SELECT count(*) FROM follows WHERE user_id = 2 AND artist_id = 3').fetchone()[0] == 1\n";

async function makeDatabase(): Promise<Buffer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'verdict-bench-agent-'));
  const file = path.join(dir, 'state.db');
  await new Promise<void>((resolve, reject) => {
    const run = spawn(PYTHON, ['-c', `import sqlite3; c = sqlite3.connect(${JSON.stringify(file)}); c.executescript(${JSON.stringify(SCHEMA)}); c.commit()`]);
    run.on('error', reject);
    run.on('exit', (status) => (status === 0 ? resolve() : reject(new Error(`python3 exited ${status}`))));
  });
  return readFileSync(file);
}

/** One bare check: a fresh python3 that writes the bytes to a file, opens it and runs the query. */
function bareCheck(file: string, bytes: string): Promise<void> {
  const script = `import base64, sqlite3\nopen(${JSON.stringify(file)}, 'wb').write(base64.b64decode(${JSON.stringify(bytes)}))\ncon = sqlite3.connect(${JSON.stringify(file)})\nassert con.execute('PRAGMA integrity_check').fetchone()[0] == 'ok'\nassert con.execute('SELECT count(*) FROM follows WHERE user_id = 2 AND artist_id = 3').fetchone()[0] == 1`;
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, ['-c', script], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (status) => (status === 0 ? resolve() : reject(new Error(`bare check exited ${status}`))));
  });
}

export async function run(): Promise<void> {
  const cores = availableParallelism();
  heading(`agent_state: checks/s, the verifier on ${cores} warm sandbox slots vs a bare python3 -c sqlite check loop per core`);
  const bytes = (await makeDatabase()).toString('base64');
  const dir = mkdtempSync(path.join(tmpdir(), 'verdict-bench-agent-'));
  const BARE = 200;
  const bare = await timed(async () => {
    await Promise.all(
      Array.from({ length: cores }, async (_, lane) => {
        for (let k = lane; k < BARE; k += cores) await bareCheck(path.join(dir, `bare-${lane}.db`), bytes);
      }),
    );
  });
  const sandbox = await Sandbox.start(sandboxConfigSection.parse({ workers: cores }));
  const services = { sandbox };
  const sample = (i: number): Sample => ({
    id: `a${i}`,
    verifier: 'agent_state',
    response: 'done',
    label: { task: { id: 'follow', code: VERIFY } },
    groupId: '',
    responseTokens: 0,
    metadata: { initialState: { sqlite: bytes }, finalState: { sqlite: bytes } },
  });
  const scoreOne = (i: number) => scoreAsync(agentState as AsyncVerifier, sample(i), { signal: new AbortController().signal, services, compute: async () => null });
  for (let i = 0; i < 50; i++) await scoreOne(i);
  const CHECKS = 2000;
  let passed = 0;
  const verdict = await timed(async () => {
    await Promise.all(
      Array.from({ length: 4 * cores }, async (_, lane) => {
        for (let k = lane; k < CHECKS; k += 4 * cores) if ((await scoreOne(k)).status === 'OK') passed++;
      }),
    );
  });
  await sandbox.close();
  const widths = [58, 12];
  process.stdout.write(row(['path', 'checks/s'], widths) + '\n');
  process.stdout.write(row([`bare python3 -c per check, ${cores} loops (${BARE} checks)`, (BARE / bare.seconds).toFixed(1)], widths) + '\n');
  process.stdout.write(row([`agent_state verifier, sandboxed (${CHECKS} checks, ${passed} OK)`, (CHECKS / verdict.seconds).toFixed(1)], widths) + '\n');
  process.stdout.write(`  verifier ÷ bare loop (checks/s, same machine, this run): ${((CHECKS / verdict.seconds) / (BARE / bare.seconds)).toFixed(2)}×\n`);
}

