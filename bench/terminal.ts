import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import type { Sample } from '../core/sample';
import { scoreAsync } from '../core/score';
import type { AsyncVerifier } from '../core/verifier';
import { systemMounts } from '../services/sandbox/bwrap';
import { BwrapWorkspace, terminalConfigSection } from '../services/terminal';
import { terminal } from '../verifiers/terminal';
import { runDocker } from './terminal-docker';
import { heading, row, timed } from './timing';

/**
 * terminal tasks/s on this machine: a 5-file workspace and a one-line test.sh through the verifier
 * (archive unpacked, fresh sandbox, runner, two uids, leftover kill, reward read), beside a bare
 * loop of `bwrap … bash test.sh` on the same workspace folder (same namespaces and system mounts,
 * nothing else), as many at once as there are cores. The ratio divides Verdict's tasks/s by the
 * bare loop's, over rounds that alternate the two.
 */

const TEST = 'test "$(cat /app/answer.txt)" = 42 && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n';

function tarOf(dir: string): Promise<Buffer> {
  const out = path.join(path.dirname(dir), 'ws.tar');
  return new Promise((resolve, reject) => {
    const child = spawn('tar', ['-C', dir, '-cf', out, '.'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (status) => (status === 0 ? resolve(readFileSync(out)) : reject(new Error(`tar exited ${status}`))));
  });
}

function bare(workspace: string, tests: string, logs: string): Promise<void> {
  const args = [
    '--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts', '--die-with-parent', '--new-session',
    ...systemMounts(),
    '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp',
    '--bind', workspace, '/app', '--ro-bind', tests, '/tests', '--bind', logs, '/logs/verifier',
    '--', '/bin/bash', '/tests/test.sh',
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/bwrap', args, { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (status) => (status === 0 ? resolve() : reject(new Error(`bare bwrap exited ${status}`))));
  });
}

export async function run(): Promise<void> {
  const cores = availableParallelism();
  heading(`terminal: tasks/s for a 5-file workspace and a one-line test.sh, the verifier vs a bare bwrap … bash test.sh loop (${cores} at once)`);
  if (process.getuid?.() !== 0) {
    process.stdout.write('  skipped: the bwrap backend needs root\n');
    return;
  }
  const base = mkdtempSync(path.join(tmpdir(), 'verdict-bench-terminal-'));
  const workspace = path.join(base, 'ws');
  mkdirSync(workspace);
  writeFileSync(path.join(workspace, 'answer.txt'), '42');
  for (let k = 0; k < 4; k++) writeFileSync(path.join(workspace, `file${k}.txt`), `content ${k}\n`.repeat(50));
  const tests = path.join(base, 'tests');
  mkdirSync(tests);
  writeFileSync(path.join(tests, 'test.sh'), TEST);
  const tar = (await tarOf(workspace)).toString('base64');

  const services = { terminal: new BwrapWorkspace(terminalConfigSection.parse({ workers: cores })) };
  const sample = (i: number): Sample => ({ id: `t${i}`, verifier: 'terminal', response: '', label: { task: { id: 'bench', tests: { 'test.sh': TEST } } }, groupId: '', responseTokens: 0, metadata: { workspace: { tar } } });
  const scoreOne = (i: number) => scoreAsync(terminal as AsyncVerifier, sample(i), { signal: new AbortController().signal, services, compute: async () => null });
  for (let i = 0; i < 4; i++) await scoreOne(i);

  // Rounds that alternate the two loops, so that a drift of the machine's speed falls on both.
  const ROUNDS = 4;
  const RUNS = 100;
  let passed = 0;
  const seconds = { bare: 0, verdict: 0 };
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const bareRun = await timed(async () => {
      await Promise.all(
        Array.from({ length: cores }, async (_, lane) => {
          const logs = path.join(base, `logs-${lane}`);
          if (!existsSync(logs)) mkdirSync(logs);
          for (let k = lane; k < RUNS; k += cores) await bare(workspace, tests, logs);
        }),
      );
    });
    const verdict = await timed(async () => {
      await Promise.all(
        Array.from({ length: cores }, async (_, lane) => {
          for (let k = lane; k < RUNS; k += cores) {
            const outcome = await scoreOne(k);
            if (outcome.status === 'OK' && outcome.reward === 1) passed++;
          }
        }),
      );
    });
    seconds.bare += bareRun.seconds;
    seconds.verdict += verdict.seconds;
    ratios.push(bareRun.seconds / verdict.seconds);
  }
  const total = ROUNDS * RUNS;
  const widths = [62, 10];
  process.stdout.write(row(['path', 'tasks/s'], widths) + '\n');
  process.stdout.write(row([`bare bwrap … bash test.sh (${total} runs)`, (total / seconds.bare).toFixed(1)], widths) + '\n');
  process.stdout.write(row([`terminal verifier (${total} runs, ${passed} rewarded 1)`, (total / seconds.verdict).toFixed(1)], widths) + '\n');
  const sorted = [...ratios].sort((a, b) => a - b);
  process.stdout.write(
    `  verifier ÷ bare loop (tasks/s, same machine, this run, ${ROUNDS} alternating rounds of ${RUNS}): ${(seconds.bare / seconds.verdict).toFixed(2)}× (rounds ${sorted[0]!.toFixed(2)}–${sorted[sorted.length - 1]!.toFixed(2)}×; goal ≥ 0.8×)\n`,
  );
  await runDocker();
}
