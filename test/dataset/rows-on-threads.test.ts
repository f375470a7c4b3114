// `verdict score` from JSONL to JSONL with worker threads makes its rows on the threads
// (cli/dataset/pool-rows.ts); with --workers 0, on the calling thread. The two must write the same
// bytes and the same summary for every kind of row: these runs compare them on one awkward file.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { decompress as zstdDecompress } from 'fzstd';
import { runCli, type Finished } from './helpers';

const dir = mkdtempSync(path.join(tmpdir(), 'verdict-rows-threads-'));
const file = (name: string) => path.join(dir, name);

/** Every kind of line, with the line breaks and blank lines of a hand-edited file. */
function awkwardInput(): string {
  const lines: string[] = [];
  for (let i = 0; i < 30; i++) {
    lines.push(JSON.stringify({ id: `q${i}`, verifier: 'qa', response: `The answer is \\boxed{${'ABCD'[i % 4]}}.`, label: { choice: 'B' }, source: `s${i % 3}`, nested: { n: i } }));
    if (i % 7 === 3) lines.push('');
    if (i % 9 === 4) lines.push('   ');
  }
  lines.push('{"id": "broken", "verifier": "qa", ');
  lines.push('[{"id": "in-an-array"}]');
  lines.push('"a string"');
  lines.push(JSON.stringify({ id: 'nobody', verifier: 'no_such_verifier', response: 'x', label: {} }));
  lines.push(JSON.stringify({ id: 'bad-label', verifier: 'qa', response: 'x', label: { choice: 7 } }));
  lines.push(JSON.stringify({ id: 'no-response', verifier: 'qa', label: { choice: 'A' } }));
  // A column named as a result field is not passed through (told once on stderr).
  lines.push(JSON.stringify({ id: 'collides', verifier: 'qa', response: '\\boxed{B}', label: { choice: 'B' }, status: 'mine', reward: 3 }));
  // An async verifier: left by the thread to the calling thread's engine, which owns the services.
  const code = { mode: 'assert', tests: ['assert add(1, 2) == 3'] };
  lines.push(JSON.stringify({ id: 'code-1', verifier: 'code', response: '```python\ndef add(a, b):\n    return a + b\n```', label: code }));
  lines.push(JSON.stringify({ id: 'math-1', verifier: 'math', response: 'so \\boxed{\\frac{1}{2}}', label: { gold: '0.5' } }));
  lines.push(JSON.stringify({ id: 'code-2', verifier: 'code', response: 'no code', label: code }));
  lines.push(JSON.stringify({ id: 'q-last', verifier: 'qa', response: 'Answer: B', label: { choice: 'B' } }));
  // Line breaks of every kind, and no break after the last line.
  return lines.map((line, i) => line + (i % 5 === 0 ? '\r\n' : '\n')).join('') + '\n\n' + JSON.stringify({ id: 'tail', verifier: 'qa', response: 'B', label: { choice: 'B' } });
}

/** The run, its output's bytes, and its summary less the latencies (which differ run to run). */
async function score(input: string, output: string, args: string[]): Promise<Finished & { bytes: Buffer; summary: unknown }> {
  const run = await runCli(['score', input, '-o', output, '--no-progress', '--summary-json', `${output}.summary.json`, ...args]);
  const summary = JSON.parse(readFileSync(`${output}.summary.json`, 'utf8'), (key, value: unknown) => (key === 'p50Ms' || key === 'p99Ms' ? undefined : value));
  return { ...run, bytes: readFileSync(output), summary };
}

describe('verdict score: rows made on the pool threads', () => {
  let reference: Awaited<ReturnType<typeof score>>;

  beforeAll(async () => {
    writeFileSync(file('in.jsonl'), awkwardInput());
    reference = await score(file('in.jsonl'), file('ref.jsonl'), ['--workers', '0']);
  });

  it('the calling thread alone scores every line as a row or an INVALID result', () => {
    const rows = reference.bytes.toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get('q1')).toMatchObject({ status: 'STATUS_OK', reward: 1, source: 's1', nested: { n: 1 } });
    expect(byId.get('nobody')).toMatchObject({ status: 'STATUS_INVALID' });
    // No sandbox in the default config: ABORTED, from the calling thread's engine.
    expect(byId.get('code-2')).toMatchObject({ status: 'STATUS_ABORTED', reason: 'service_unavailable' });
    expect(byId.get('math-1')).toMatchObject({ status: 'STATUS_OK', reward: 1 });
    expect(byId.get('collides')).not.toHaveProperty('status', 'mine');
    expect(rows.filter((r) => r.status === 'STATUS_INVALID' && String(r.reason).includes('not valid JSON'))).toHaveLength(1);
    expect(reference.stderr).toContain('input column "status" is not passed through');
  });

  it.each([
    ['2 threads, batches of 4,096', ['--workers', '2']],
    ['2 threads, batches of 3 lines', ['--workers', '2', '--batch-size', '3']],
    ['1 thread, batches of 1 line', ['--workers', '1', '--batch-size', '1']],
  ])('%s: the same bytes and the same summary', async (_name, args) => {
    const run = await score(file('in.jsonl'), file(`threads-${args.join('')}.jsonl`), args);
    expect(run.code).toBe(reference.code);
    expect(run.bytes.toString('utf8')).toBe(reference.bytes.toString('utf8'));
    expect(run.summary).toEqual(reference.summary);
    // Told once, whichever thread met the column.
    expect(run.stderr.match(/input column "status" is not passed through/g)).toHaveLength(1);
  });

  it('a gzip input and --keep-response: the same as on the calling thread', async () => {
    writeFileSync(file('in.jsonl.gz'), gzipSync(awkwardInput()));
    const here = await score(file('in.jsonl.gz'), file('gz-here.jsonl'), ['--workers', '0', '--keep-response', '--no-keep-columns']);
    const threads = await score(file('in.jsonl.gz'), file('gz-threads.jsonl'), ['--workers', '2', '--keep-response', '--no-keep-columns', '--batch-size', '5']);
    expect(threads.bytes.toString('utf8')).toBe(here.bytes.toString('utf8'));
    expect(here.bytes.toString('utf8')).toContain('"response":"Answer: B"');
  });

  it.each([['gzip', 'out.jsonl.gz', gunzipSync], ['zstd', 'out.jsonl.zst', (b: Buffer) => Buffer.from(zstdDecompress(b))]] as const)(
    'a %s output: rows the threads encoded, members or frames one after another, read as the same text',
    async (_name, out, decode) => {
      const threads = await score(file('in.jsonl'), file(`threads-${out}`), ['--workers', '2', '--batch-size', '4']);
      expect(threads.code).toBe(reference.code);
      expect(decode(threads.bytes).toString('utf8')).toBe(reference.bytes.toString('utf8'));
    },
  );

  it('a response over the engine limit is INVALID on a thread as in the engine', async () => {
    const long = 'x'.repeat(4 * 1024 * 1024 + 1);
    writeFileSync(file('long.jsonl'), [{ id: 'long', verifier: 'qa', response: long, label: { choice: 'A' } }, { id: 'short', verifier: 'qa', response: 'A', label: { choice: 'A' } }].map((r) => JSON.stringify(r)).join('\n'));
    const here = await score(file('long.jsonl'), file('long-here.jsonl'), ['--workers', '0']);
    const threads = await score(file('long.jsonl'), file('long-threads.jsonl'), ['--workers', '2']);
    expect(threads.bytes.toString('utf8')).toBe(here.bytes.toString('utf8'));
    expect(here.bytes.toString('utf8')).toContain('"reason":"line 1: response: longer than 4194304 characters"');
  });
});
