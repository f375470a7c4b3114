import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { checkpointLine, jsonl, qaRows, readJsonl, runCli, startScore, until, type Row } from './helpers';

const dir = mkdtempSync(path.join(tmpdir(), 'verdict-resume-'));
const file = (name: string) => path.join(dir, name);
const ROWS = 8000;
const common = ['--workers', '1', '--batch-size', '200'];

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('verdict score --resume', () => {
  const input = file('in.jsonl');
  let reference: Buffer;

  beforeAll(async () => {
    // Long responses keep the run going long enough to be killed at several points.
    writeFileSync(input, jsonl(qaRows(ROWS, (i) => ({ response: `${'reasoning step. '.repeat(150)}\\boxed{${'ABCD'[i % 4]}}` }))));
    const run = await runCli(['score', input, '-o', file('full.jsonl'), ...common]);
    expect(run.code).toBe(0);
    reference = readFileSync(file('full.jsonl'));
    expect(existsSync(file('full.jsonl.resume.json'))).toBe(false);
  });

  /** Starts a run, kill -9s it once its checkpoint reaches `line`, then resumes it to the end. */
  async function killAndResume(output: string, line: number): Promise<{ killedAt: number; resumed: Awaited<ReturnType<typeof runCli>> }> {
    const run = startScore([input, '-o', output, ...common]);
    let exited = false;
    void run.done.then(() => (exited = true));
    await until(() => exited || (existsSync(`${output}.resume.json`) && checkpointLine(output) >= line), `checkpoint line ${line}`);
    expect(exited).toBe(false);
    const killedAt = checkpointLine(output);
    run.child.kill('SIGKILL');
    await run.done;
    const resumed = await runCli(['score', input, '-o', output, ...common, '--resume']);
    return { killedAt, resumed };
  }

  it.each([0, 1000, 5000])('after kill -9 at checkpoint line ≥ %i: no sample twice, none lost, byte-identical output', async (line) => {
    const output = file(`killed-${line}.jsonl`);
    const { killedAt, resumed } = await killAndResume(output, line);
    expect(killedAt).toBeLessThan(ROWS);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`scored ${ROWS} samples: ${ROWS} ok`));
    const results = readJsonl(output);
    expect(results.map((r) => r.line)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
    expect(readFileSync(output).equals(reference)).toBe(true);
    expect(existsSync(`${output}.resume.json`)).toBe(false);
  });

  it('a gzip output is cut at a member boundary and resumed to the same bytes', async () => {
    const gz = await runCli(['score', input, '-o', file('full.jsonl.gz'), ...common]);
    expect(gz.code).toBe(0);
    const { resumed } = await killAndResume(file('killed.jsonl.gz'), 2000);
    expect(resumed.code).toBe(0);
    expect(readFileSync(file('killed.jsonl.gz')).equals(readFileSync(file('full.jsonl.gz')))).toBe(true);
    expect(gunzipSync(readFileSync(file('killed.jsonl.gz'))).equals(reference)).toBe(true);
  });

  it('with group shaping and --groups, both files resume to the uninterrupted bytes', async () => {
    const grouped = file('grouped.jsonl');
    writeFileSync(grouped, jsonl(qaRows(ROWS, (i) => ({ groupId: `g${Math.floor(i / 6)}`, responseTokens: 10 + (i % 5), response: `${'step. '.repeat(200)}\\boxed{${'ABCD'[i % 4]}}` }))));
    const args = (out: string) => [grouped, '-o', out, '--groups', `${out}.groups`, ...common, '--group-options', '{"lengthPenalty":true,"maxLength":20,"advantage":"grpo"}'];
    const full = await runCli(['score', ...args(file('grouped-full.jsonl'))]);
    expect(full.code).toBe(0);
    const output = file('grouped-killed.jsonl');
    const run = startScore(args(output));
    let exited = false;
    void run.done.then(() => (exited = true));
    await until(() => exited || checkpointLine(output) >= 3000, 'checkpoint line 3000');
    expect(exited).toBe(false);
    run.child.kill('SIGKILL');
    await run.done;
    const resumed = await runCli(['score', ...args(output), '--resume']);
    expect(resumed.code).toBe(0);
    expect(readFileSync(output).equals(readFileSync(file('grouped-full.jsonl')))).toBe(true);
    expect(readFileSync(`${output}.groups`).equals(readFileSync(file('grouped-full.jsonl.groups')))).toBe(true);
    expect(resumed.stdout).toMatch(new RegExp(`groups: ${Math.ceil(ROWS / 6)}, kept`));
  });

  it('SIGINT prints the summary so far and exits 130; --resume finishes the same file', async () => {
    const output = file('sigint.jsonl');
    const run = startScore([input, '-o', output, ...common]);
    let exited = false;
    void run.done.then(() => (exited = true));
    await until(() => exited || checkpointLine(output) >= 2000, 'checkpoint line 2000');
    run.child.kill('SIGINT');
    const stopped = await run.done;
    expect(stopped.code).toBe(130);
    const m = /interrupted after input line (\d+): continue with the same command and --resume/.exec(stopped.stdout);
    expect(m).not.toBeNull();
    expect(stopped.stdout).toMatch(new RegExp(`scored ${m![1]} samples: ${m![1]} ok`));
    // The partial results stay under a temporary name for --resume; the output's own name is for a finished run.
    expect(existsSync(output)).toBe(false);
    expect(readJsonl(`${output}.partial`)).toHaveLength(Number(m![1]));
    const resumed = await runCli(['score', input, '-o', output, ...common, '--resume']);
    expect(resumed.code).toBe(0);
    expect(readFileSync(output).equals(reference)).toBe(true);
  });

  it('refuses to resume a finished output or one written from other options', async () => {
    const finished = await runCli(['score', input, '-o', file('full.jsonl'), ...common, '--resume']);
    expect(finished.code).toBe(2);
    expect(finished.stderr).toMatch(/has no checkpoint/);
    const output = file('other.jsonl');
    const run = startScore([input, '-o', output, ...common]);
    await until(() => checkpointLine(output) >= 200, 'first batch');
    run.child.kill('SIGKILL');
    await run.done;
    const other = await runCli(['score', input, '-o', output, ...common, '--id-field', 'id', '--resume']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/written with another row mapping \(--preset/);
    const grouped = await runCli(['score', input, '-o', output, ...common, '--group-options', '{"advantage":"grpo"}', '--resume']);
    expect(grouped.code).toBe(2);
    expect(grouped.stderr).toMatch(/another group shaping/);
  });

  it('resumes with options that cannot change a result (--batch-size, --workers): the same bytes', async () => {
    const output = file('rebatched.jsonl');
    const run = startScore([input, '-o', output, ...common]);
    await until(() => checkpointLine(output) >= 400, 'two batches');
    run.child.kill('SIGKILL');
    await run.done;
    const resumed = await runCli(['score', input, '-o', output, '--workers', '2', '--batch-size', '300', '--resume']);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    expect(readFileSync(output).equals(reference)).toBe(true);
  });
});

describe('verdict score --retry-aborted', () => {
  it('keeps the previous rows that are final and scores only the ABORTED ones again', async () => {
    const input = file('retry.jsonl');
    writeFileSync(input, jsonl(qaRows(12)));
    const reference = await runCli(['score', input, '-o', file('retry-ref.jsonl'), '--workers', '0']);
    expect(reference.code).toBe(0);
    // Every batch ABORTED: the only replica is down.
    const port = await closedPort();
    const down = await runCli(['score', input, '-o', file('prev.jsonl'), '--server', `127.0.0.1:${port}`]);
    expect(down.code).toBe(1);
    const prev = readJsonl(file('prev.jsonl'));
    expect(prev.every((r) => r.status === 'STATUS_ABORTED' && r.reason === 'unavailable')).toBe(true);
    // Pretend an earlier run finished the first 5 rows; marked so that copying them can be seen.
    const edited: Row[] = prev.map((r, i) => (i < 5 ? { ...readJsonl(file('retry-ref.jsonl'))[i]!, details: { kept: true } } : r));
    writeFileSync(file('prev.jsonl'), jsonl(edited));

    const retried = await runCli(['score', input, '-o', file('retried.jsonl'), '--workers', '0', '--retry-aborted', file('prev.jsonl')]);
    expect(retried.code).toBe(0);
    const out = readJsonl(file('retried.jsonl'));
    const ref = readJsonl(file('retry-ref.jsonl'));
    expect(out.slice(0, 5)).toEqual(edited.slice(0, 5));
    expect(out.slice(5)).toEqual(ref.slice(5));
    expect(retried.stdout).toMatch(/scored 12 samples: 12 ok/);
  });
});
