import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dedupKey } from '../../curate/dedup';
import { dedup, renderDedup, type DedupOptions } from './dedup';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'verdict-dedup-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string) => path.join(dir, name);
const lines = (name: string) => readFileSync(file(name), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
const options = (over: Partial<DedupOptions>): DedupOptions => ({ input: file('in.jsonl'), textFields: null, idField: 'id', progress: false, ...over });

describe('curate dedup on files', () => {
  it('refuses a bad output name before opening anything: no kept file is started and left behind', async () => {
    writeFileSync(file('in.jsonl'), '{"id":"a","prompt":"x"}\n{"id":"b","prompt":"x"}\n');
    await expect(dedup(options({ output: file('kept.jsonl'), removed: file('removed.jsonl'), clusters: file('clusters.txt') }))).rejects.toThrow(/^--clusters .*clusters\.txt: unknown extension/);
    expect(readdirSync(dir)).toEqual(['in.jsonl']);
  });

  it('keeps the first row of each statement byte for byte, and reports the removed rows and their clusters', async () => {
    const input = [
      '{"id": "a",  "prompt": "Add 2 and 2."}',
      '{"id":"b","prompt":"add 2   and\\n2."}',
      '{"id":7,"prompt":"Another problem"}',
      '{"id":"c","prompt":"ADD 2 AND 2."}',
      '{"id":"d","prompt":"another   problem "}',
      '{"prompt":"Unique."}',
    ];
    writeFileSync(file('in.jsonl'), input.join('\n') + '\n');
    const report = await dedup(options({ output: file('kept.jsonl'), removed: file('removed.jsonl'), clusters: file('clusters.jsonl') }));
    // Kept rows are the input's lines as they were, spacing and all.
    expect(readFileSync(file('kept.jsonl'), 'utf8')).toBe([input[0], input[2], input[5]].join('\n') + '\n');
    const add = dedupKey('Add 2 and 2.');
    const another = dedupKey('Another problem');
    expect(lines('removed.jsonl')).toEqual([
      { line: 2, id: 'b', reason: 'duplicate', key: add, firstLine: 1, firstId: 'a', row: { id: 'b', prompt: 'add 2   and\n2.' } },
      { line: 4, id: 'c', reason: 'duplicate', key: add, firstLine: 1, firstId: 'a', row: { id: 'c', prompt: 'ADD 2 AND 2.' } },
      { line: 5, id: 'd', reason: 'duplicate', key: another, firstLine: 3, firstId: '7', row: { id: 'd', prompt: 'another   problem ' } },
    ]);
    expect(lines('clusters.jsonl')).toEqual([
      { key: add, size: 3, kept: { line: 1, id: 'a' }, removed: [{ line: 2, id: 'b' }, { line: 4, id: 'c' }] },
      { key: another, size: 2, kept: { line: 3, id: '7' }, removed: [{ line: 5, id: 'd' }] },
    ]);
    expect(report).toEqual({
      kind: 'verdict.curate',
      version: 1,
      command: 'dedup',
      input: file('in.jsonl'),
      rows: 6,
      kept: 3,
      removed: 3,
      clusters: 2,
      keyFields: { prompt: 6 },
      largest: [
        { key: add, firstLine: 1, size: 3 },
        { key: another, firstLine: 3, size: 2 },
      ],
    });
    expect(renderDedup(report).split('\n')).toEqual([
      '6 rows: kept 3, removed 3 duplicates in 2 clusters',
      '  key: prompt (6 rows)',
      `       3 copies of line 1 (key ${add.slice(0, 12)}…)`,
      `       2 copies of line 3 (key ${another.slice(0, 12)}…)`,
    ]);
  });

  it('keys on the --text-field paths when given, and lists equal clusters by their first line', async () => {
    writeFileSync(
      file('in.jsonl'),
      ['{"id":1,"q":{"text":"x"},"prompt":"p1"}', '{"id":2,"q":{"text":"y"},"prompt":"p1"}', '{"id":3,"q":{"text":"y"}}', '{"id":4,"q":{"text":"x"}}'].join('\n'),
    );
    const report = await dedup(options({ textFields: ['q.text'] }));
    expect(report).toMatchObject({ rows: 4, kept: 2, removed: 2, keyFields: { 'q.text': 4 } });
    expect(report.largest.map((c) => [c.firstLine, c.size])).toEqual([
      [1, 2],
      [2, 2],
    ]);
  });

  it('stops at a line that is not a JSON object, naming file and line, and leaves no output behind', async () => {
    writeFileSync(file('in.jsonl'), '{"id":"a","prompt":"p"}\n{"id":"a","prompt":"p"}\n[1, 2]\n');
    await expect(dedup(options({ output: file('kept.jsonl'), removed: file('removed.jsonl') }))).rejects.toThrow(`${file('in.jsonl')}:3: expected a JSON object, received array`);
    expect(readdirSync(dir)).toEqual(['in.jsonl']);
  });
});
