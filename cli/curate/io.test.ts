import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { InputRow } from '../dataset/rows';
import { partialPath } from '../dataset/rows';
import { checkOutputs, finishOutputs, keptOutput, maybeOutput, openInput, Output, rowOrThrow } from './io';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'verdict-curate-io-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string) => path.join(dir, name);
/** A record output (`--removed`) at `name`. */
const records = (name: string) => ({ path: file(name), option: '--removed' });

async function rows(name: string, format?: string): Promise<InputRow[]> {
  const input = await openInput(file(name), format, 'input');
  const out: InputRow[] = [];
  for await (const row of input.source.rows) out.push(row);
  return out;
}

describe('files in and out of verdict curate', () => {
  it('reads any format by its extension or the flag', async () => {
    writeFileSync(file('in.jsonl.gz'), gzipSync('{"a":1}\n\n{"a":2}\n'));
    expect(await rows('in.jsonl.gz')).toEqual([
      { line: 1, value: { a: 1 }, text: '{"a":1}' },
      { line: 3, value: { a: 2 }, text: '{"a":2}' },
    ]);
    writeFileSync(file('in.data'), gzipSync('{"b":1}\n'));
    expect(await rows('in.data', 'jsonl.gz')).toEqual([{ line: 1, value: { b: 1 }, text: '{"b":1}' }]);
    await expect(openInput(file('in.data'), 'csv', 'input')).rejects.toThrow('input: unknown format "csv"');
  });

  it('writes rows as read, lines unparsed and records as JSON, under a temporary name until closed', async () => {
    const out = new Output(records('out.jsonl'), null);
    expect(out.takesLines).toBe(true);
    await out.row({ line: 1, value: { a: 1 }, text: '{ "a" : 1 }' });
    await out.line('{"raw":true}');
    await out.record({ reason: 'duplicate' });
    expect(out.count).toBe(3);
    expect(existsSync(file('out.jsonl'))).toBe(false);
    await out.close();
    expect(readFileSync(file('out.jsonl'), 'utf8')).toBe('{ "a" : 1 }\n{"raw":true}\n{"reason":"duplicate"}\n');
  });

  it('writes in batches of 1024 as it goes, not all at the end', async () => {
    const out = new Output(records('big.jsonl'), null);
    for (let i = 0; i < 1025; i++) await out.record({ i });
    expect(readFileSync(partialPath(file('big.jsonl')), 'utf8').split('\n')).toHaveLength(1025); // 1024 lines and the empty end
    await out.abandon();
    expect([existsSync(file('big.jsonl')), existsSync(partialPath(file('big.jsonl')))]).toEqual([false, false]);
  });

  it('abandons every output when the command failed', async () => {
    const a = new Output(records('a.jsonl'), null);
    const b = new Output(records('b.jsonl.zst'), null);
    await a.record({ x: 1 });
    await finishOutputs(false, a, b);
    expect([existsSync(file('a.jsonl')), existsSync(partialPath(file('a.jsonl'))), existsSync(partialPath(file('b.jsonl.zst')))]).toEqual([false, false, false]);
  });

  // Parquet outputs are left to the cross-layer suites, which run the CLI: jest's module loader cannot require() hyparquet's ES modules.
  it('no path, no output; a name without a format is refused', async () => {
    expect(maybeOutput({ path: undefined, option: '--removed' }, null)).toBeNull();
    const some = maybeOutput(records('x.jsonl'), null)!;
    expect(some.takesLines).toBe(true);
    await some.abandon();
    // -o is told of its format option; a record file, which has none, only of the extensions.
    expect(() => new Output({ ...keptOutput(file('out.csv'), undefined), path: file('out.csv') }, null)).toThrow(/^-o .*out\.csv: unknown extension; .*or choose the format with --output-format/);
    expect(() => new Output(records('out.csv'), null)).toThrow(/^--removed .*out\.csv: unknown extension; name it \.jsonl, \.jsonl\.gz, \.jsonl\.zst or \.parquet$/);
    expect(existsSync(partialPath(file('out.csv')))).toBe(false);
  });

  it('checks every output name before any is opened: a bad last one leaves no file behind', () => {
    expect(() => checkOutputs(keptOutput(file('kept.jsonl'), undefined), records('removed.txt'))).toThrow(/^--removed .*removed\.txt: unknown extension/);
    expect(() => checkOutputs(keptOutput(file('kept.txt'), 'jsonl'), { path: undefined, option: '--clusters' })).not.toThrow();
    expect(existsSync(partialPath(file('kept.jsonl')))).toBe(false);
  });

  it('stops at a row that is not an object, naming file and line', () => {
    expect(() => rowOrThrow({ line: 9, error: 'expected a JSON object, received array' }, 'in.jsonl')).toThrow('in.jsonl:9: expected a JSON object, received array');
    const row = { line: 1, value: { a: 1 } };
    expect(rowOrThrow(row, 'in.jsonl')).toBe(row);
  });
});
