import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ScorerClient } from '../../services/grpc/client';
import { resultToJson } from '../../services/wire/json';
import { runCli, serveCli } from '../fixtures/cli';
import { packageRoot } from '../../services/paths';
import { mixedQaBatch, sample } from '../fixtures/samples';

const dir = mkdtempSync(path.join(tmpdir(), 'verdict-cli-'));

describe('verdict CLI (child process)', () => {
  it('score: one result line per input line, same ids, identical to gRPC; bad lines get INVALID; summary', async () => {
    const batch = mixedQaBatch();
    const lines = [...batch.map((s) => JSON.stringify(s)), 'not json', '{"id":"z","verifier":"qa","response":7}'];
    const input = path.join(dir, 'in.jsonl');
    const output = path.join(dir, 'out.jsonl');
    writeFileSync(input, lines.join('\n') + '\n\n');
    const run = await runCli(['score', input, '-o', output, '--workers', '1', '--max-invalid', '0.6']);
    expect(run.code).toBe(0);
    const results = readFileSync(output, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(results).toHaveLength(lines.length);
    expect(results.map((r) => r.id)).toEqual([...batch.map((s) => s.id), '', 'z']);
    expect(results.map((r) => r.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(results[7]).toMatchObject({ status: 'STATUS_INVALID', reason: expect.stringMatching(/^line 8: not valid JSON/) });
    expect(results[8]).toMatchObject({ status: 'STATUS_INVALID', reason: 'line 9: response: expected string, received number' });
    expect(run.stdout).toMatch(/scored 9 samples: 4 ok, 5 invalid, 0 aborted/);
    expect(run.stdout).toMatch(/qa\s+mean reward 0\.5000 over 4 ok samples/);

    const server = await serveCli(['--workers', '1']);
    const client = new ScorerClient(`127.0.0.1:${server.grpcPort}`);
    try {
      const viaGrpc = (await client.score(batch)).results.map(resultToJson).map(({ index: _i, ...r }) => r);
      // The CLI's rows add where each came from (line, groupId) and its receipt to the gRPC result.
      const viaCli = results.slice(0, batch.length).map(({ line: _l, receipt: _r, groupId: _g, ...r }) => ({ ...r, reason: String(r.reason).replace(/^line \d+: /, '') }));
      expect(viaCli).toEqual(viaGrpc);
      expect(results.slice(0, batch.length).map((r) => r.groupId)).toEqual(batch.map((s) => s.groupId || undefined));
    } finally {
      client.close();
      server.child.kill('SIGTERM');
    }
  });

  it('score reads stdin and writes stdout with "-"', async () => {
    const run = await runCli(['score', '-', '--workers', '0'], JSON.stringify(mixedQaBatch()[0]) + '\n');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ id: 'a', status: 'STATUS_OK', reward: 1 });
    expect(run.stderr).toMatch(/scored 1 sample: 1 ok/);
  });

  it('serve drains in-flight work on SIGTERM and exits 0', async () => {
    const server = await serveCli(['--workers', '2']);
    const client = new ScorerClient(`127.0.0.1:${server.grpcPort}`);
    const batch = Array.from({ length: 4000 }, (_, i) =>
      sample({ id: `q${i}`, verifier: 'qa', response: `${'reasoning '.repeat(2000)} Answer: mitochondria`, label: { answers: ['mitochondria'] } }),
    );
    const exited = new Promise<number | null>((resolve) => server.child.on('exit', resolve));
    const stream = client.scoreStream(batch);
    const seen: string[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      stream.on('data', (m: { status: string }) => {
        seen.push(m.status);
        if (seen.length === 1) server.child.kill('SIGTERM');
      });
      stream.on('end', resolve);
      stream.on('error', reject);
    });
    await ended;
    expect(seen).toHaveLength(batch.length);
    expect(seen.every((s) => s === 'STATUS_OK')).toBe(true);
    expect(await exited).toBe(0);
    expect(server.output()).toMatch(/SIGTERM, draining/);
    client.close();
  });

  it('--help on every command, and verifiers lists the registry', async () => {
    for (const args of [['--help'], ['serve', '--help'], ['score', '--help'], ['check', '--help'], ['diff', '--help'], ['verifiers', '--help']]) {
      const run = await runCli(args);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Usage: verdict/);
    }
    const list = await runCli(['verifiers', '--json']);
    const parsed = JSON.parse(list.stdout) as Array<{ name: string; labelSchema: { type: string } }>;
    expect(parsed.find((v) => v.name === 'qa')?.labelSchema.type).toBe('object');
  });

  it('check: the verifier unit-test harness reports each mismatch and exits 1', async () => {
    const cases = path.join(dir, 'cases.jsonl');
    writeFileSync(
      cases,
      [
        { id: 'right', verifier: 'qa', response: '\\boxed{C}', label: { choice: 'C' }, expect: { status: 'STATUS_OK', reward: 1 } },
        { id: 'wrong-expectation', verifier: 'qa', response: '\\boxed{B}', label: { choice: 'C' }, expect: { reward: 1, reason: 'correct_choice' } },
        { id: 'bad-expect', verifier: 'qa', response: 'x', label: { choice: 'C' }, expect: { rewrd: 1 } },
      ]
        .map((c) => JSON.stringify(c))
        .join('\n'),
    );
    const run = await runCli(['check', cases]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAIL \S+cases\.jsonl:2 \(wrong-expectation\): reward 0, expected 1; reason "wrong_choice", expected "correct_choice"/);
    expect(run.stdout).toMatch(/FAIL \S+cases\.jsonl:3 \(bad-expect\): expect\.rewrd: unknown field/);
    expect(run.stdout).toMatch(/^1 passed, 2 failed$/m);
    const bundled = await runCli(['check', path.join(packageRoot(), 'examples', 'cases.jsonl')]);
    expect(bundled.stdout).toMatch(/^5 passed, 0 failed$/m);
    expect(bundled.code).toBe(0);
  });

  it('a bad flag or config fails with a clear message', async () => {
    const bad = await runCli(['score', 'x.jsonl', '--workers', 'many']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--workers must be an integer/);
    const cfg = path.join(dir, 'bad.yaml');
    writeFileSync(cfg, 'nonsense_key: 1\n');
    const badConfig = await runCli(['score', '-', '--config', cfg]);
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toMatch(/config error: .*nonsense_key: unknown field/);
  });
});
