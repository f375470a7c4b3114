import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jsonl, parquetTool, readJsonl, readParquet, runCli, type Row } from '../dataset/helpers';

/** Distinct words per tag, so each benchmark item's phrases are its own. */
const item = (tag: string, n = 120) => Array.from({ length: n }, (_, k) => `${tag}${k}`).join(' ');

describe('verdict curate decontam and dedup', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'verdict-screen-'));
  const f = (name: string) => path.join(dir, name);
  const benchA = [{ id: 'a1', question: item('alpha'), answer: '42' }, { id: 'a2', question: item('beta') }];
  const benchB = [{ id: 'b1', problem: item('alpha') }, { id: 'b2', problem: item('gamma') }];
  mkdirSync(f('benchB'));
  writeFileSync(f('benchA.jsonl'), jsonl(benchA));
  writeFileSync(f('benchB/part-1.jsonl'), jsonl(benchB.slice(0, 1)));
  writeFileSync(f('benchB/part-2.jsonl'), jsonl(benchB.slice(1)));
  const train: Row[] = [
    { id: 't0', messages: [{ role: 'user', content: 'hello there' }, { role: 'assistant', content: 'hi' }] },
    { id: 't1', messages: [{ role: 'user', content: `Please solve: ${item('alpha')}` }] },
    { id: 't2', messages: [{ role: 'system', content: 'sys' }, { role: 'tool', content: item('gamma') }] },
    { id: 't3', messages: [{ role: 'user', content: item('beta', 40) }] },
    { id: 't4', messages: [{ role: 'assistant', content: item('beta').toUpperCase() }] },
  ];
  const trainLines = train.map((r) => JSON.stringify(r, null, 0).replace(/,"/g, ', "'));
  writeFileSync(f('train.jsonl'), trainLines.join('\n') + '\n');

  it('chains the passes in the order given, counts removals per pass, keeps the rest untouched and explains each removal', async () => {
    const run = await runCli(['curate', 'decontam', f('train.jsonl'), '--benchmark', f('benchA.jsonl'), '--benchmark', f('benchB'), '-o', f('kept.jsonl'), '--removed', f('removed.jsonl'), '--summary-json', f('report.json'), '--workers', '2']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readFileSync(f('kept.jsonl'), 'utf8')).toBe([trainLines[0], trainLines[3]].join('\n') + '\n');
    const removed = readJsonl(f('removed.jsonl'));
    expect(removed.map((r) => [r.id, r.benchmark, r.itemId])).toEqual([
      ['t1', 'benchA', 'a1'],
      ['t2', 'benchB', 'b2'],
      ['t4', 'benchA', 'a2'],
    ]);
    expect(removed[0]).toMatchObject({ line: 2, rule: 'phrases', hits: 20, phrases: 20, row: train[1] });
    expect((removed[0]!.matched as string[])[0]).toBe('alpha0 alpha1 alpha2 alpha3 alpha4 alpha5 alpha6 alpha7');
    const report = JSON.parse(readFileSync(f('report.json'), 'utf8')) as Row & { passes: Row[] };
    expect(report).toMatchObject({ kind: 'verdict.curate', version: 1, command: 'decontam', samples: 5, kept: 2, removed: 3 });
    expect(report.passes.map((p) => [p.benchmark, p.items, p.removed])).toEqual([
      ['benchA', 2, 2],
      ['benchB', 2, 1],
    ]);
    expect(report.passes[1]!.files).toHaveLength(2);
    expect(run.stdout).toMatch(/removed 3/);

    // The other order: the alpha copy now counts against benchB.
    const reversed = await runCli(['curate', 'decontam', f('train.jsonl'), '--benchmark', f('benchB'), '--benchmark', f('benchA.jsonl'), '--summary-json', f('report2.json'), '--workers', '0']);
    expect(reversed.code).toBe(0);
    const second = JSON.parse(readFileSync(f('report2.json'), 'utf8')) as { passes: Row[] };
    expect(second.passes.map((p) => [p.benchmark, p.removed])).toEqual([
      ['benchB', 2],
      ['benchA', 1],
    ]);
  });

  it('gives the same removals on any number of threads', async () => {
    const many: Row[] = Array.from({ length: 3000 }, (_, i) => ({ id: `m${i}`, text: i % 7 === 0 ? `copy ${item(i % 2 ? 'alpha' : 'gamma')}` : `unrelated sample number ${i} ${item('zeta', 30)}` }));
    writeFileSync(f('many.jsonl'), jsonl(many));
    const removedWith = async (workers: string) => {
      const out = f(`many-removed-${workers}.jsonl`);
      const run = await runCli(['curate', 'decontam', f('many.jsonl'), '--benchmark', f('benchA.jsonl'), '--benchmark', f('benchB'), '--removed', out, '--workers', workers]);
      expect(run.code).toBe(0);
      return readJsonl(out).map((r) => [r.line, r.benchmark, r.itemId]);
    };
    const inline = await removedWith('0');
    expect(inline).toHaveLength(Math.ceil(3000 / 7));
    expect(await removedWith('2')).toEqual(inline);
  });

  it('reads Parquet and compressed training data and writes kept rows in any format', async () => {
    // verl's rollout layout, written by hyparquet-writer: nested lists and structs, an INT64 index.
    const verl = train.map((r, i) => ({ data_source: 'mix', prompt: r.messages, reward_model: { style: 'rule', ground_truth: 'x' }, responses: ['r'], extra_info: { index: i, split: 'train' } }));
    await parquetTool(['verl', f('train.parquet')], JSON.stringify(verl));
    const run = await runCli(['curate', 'decontam', f('train.parquet'), '--benchmark', `A=${f('benchA.jsonl')}`, '--text-field', 'prompt', '-o', f('kept.parquet'), '--removed', f('removed.jsonl.gz')]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const kept = await readParquet(f('kept.parquet'));
    const original = await readParquet(f('train.parquet'));
    expect(kept.schema).toEqual(original.schema);
    expect(kept.rows).toEqual([original.rows[0], original.rows[2], original.rows[3]]);
    const zst = await runCli(['curate', 'decontam', f('removed.jsonl.gz'), '--benchmark', `A=${f('benchA.jsonl')}`, '--text-field', 'row', '-o', f('again.jsonl.zst')]);
    expect(zst.stdout).toMatch(/screened 2 samples .*kept 0, removed 2/);
  });

  it('screens code problems by prefix hash and shared 60-grams', async () => {
    const statement = 'You are given a tree with N vertices numbered 1 to N. For each vertex, count the vertices at distance at most K from it. ' + 'Print the answers separated by spaces. '.repeat(4);
    writeFileSync(f('lcb.jsonl'), jsonl([{ id: 'lcb-1', question_content: statement }]));
    writeFileSync(
      f('code-train.jsonl'),
      jsonl([
        { id: 'same-prefix', problem: statement.replace(/ /g, '  ').toUpperCase() },
        { id: 'embedded', problem: `Story first. ${statement.slice(30, 130)} and more.` },
        { id: 'other', problem: 'Read an integer and print it twice.' },
      ]),
    );
    const run = await runCli(['curate', 'decontam', f('code-train.jsonl'), '--form', 'code', '--benchmark', f('lcb.jsonl'), '--benchmark-field', 'question_content', '--text-field', 'problem', '--removed', f('code-removed.jsonl')]);
    expect(run.code).toBe(0);
    expect(readJsonl(f('code-removed.jsonl')).map((r) => [r.id, r.rule])).toEqual([
      ['same-prefix', 'prefix'],
      ['embedded', 'ngrams'],
    ]);
  });

  it('refuses what it cannot do, naming the flag or the line', async () => {
    expect((await runCli(['curate', 'decontam', f('train.jsonl')])).stderr).toMatch(/at least one --benchmark/);
    expect((await runCli(['curate', 'decontam', f('train.jsonl'), '--benchmark', f('nope.jsonl')])).stderr).toMatch(/--benchmark nope: .*does not exist/);
    expect((await runCli(['curate', 'decontam', f('train.jsonl'), '--benchmark', f('benchA.jsonl'), '--exhaustive', 'aime'])).stderr).toMatch(/--exhaustive aime: no --benchmark has that name/);
    writeFileSync(f('broken.jsonl'), '{"id":"x","text":"ok"}\n{not json\n');
    const broken = await runCli(['curate', 'decontam', f('broken.jsonl'), '--benchmark', f('benchA.jsonl')]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.jsonl:2: not valid JSON/);
  });

  it('dedup keeps the first of each statement and reports the clusters', async () => {
    writeFileSync(
      f('dups.jsonl'),
      jsonl([
        { id: 'd1', problem: 'Sum two numbers.' },
        { id: 'd2', problem: '  sum   TWO\nnumbers. ' },
        { id: 'd3', problem: 'Sum three numbers.' },
        { id: 'd4', problem: 'Sum two numbers.' },
        { id: 'd5', problem: 'Sum two numbers!' },
      ]),
    );
    const run = await runCli(['curate', 'dedup', f('dups.jsonl'), '--text-field', 'problem', '-o', f('dedup.jsonl'), '--removed', f('dedup-removed.jsonl'), '--clusters', f('clusters.jsonl')]);
    expect(run.code).toBe(0);
    expect(readJsonl(f('dedup.jsonl')).map((r) => r.id)).toEqual(['d1', 'd3', 'd5']);
    expect(readJsonl(f('dedup-removed.jsonl')).map((r) => [r.id, r.firstId])).toEqual([
      ['d2', 'd1'],
      ['d4', 'd1'],
    ]);
    expect(readJsonl(f('clusters.jsonl'))).toEqual([expect.objectContaining({ size: 3, kept: { line: 1, id: 'd1' }, removed: [{ line: 2, id: 'd2' }, { line: 4, id: 'd4' }] })]);
    expect(run.stdout).toMatch(/5 rows: kept 3, removed 2 duplicates in 1 clusters\n  key: problem \(5 rows\)/);
  });

  it('dedup with no options keys on the prompt field, not the id, and says so', async () => {
    writeFileSync(
      f('dups-default.jsonl'),
      jsonl([
        { id: 'p1', prompt: [{ role: 'user', content: 'Sum two numbers.' }], data_source: 'a' },
        { id: 'p2', prompt: [{ role: 'user', content: 'sum two  numbers.' }], data_source: 'b' },
        { id: 'p3', prompt: [{ role: 'user', content: 'Sum three numbers.' }], data_source: 'a' },
        { id: 'p4', note: 'Sum three numbers.' },
        { id: 'p5', note: 'sum three numbers.' },
      ]),
    );
    const run = await runCli(['curate', 'dedup', f('dups-default.jsonl'), '-o', f('dedup-default.jsonl'), '--summary-json', f('dedup-default.json')]);
    expect(run.code).toBe(0);
    expect(readJsonl(f('dedup-default.jsonl')).map((r) => r.id)).toEqual(['p1', 'p3', 'p4']);
    expect(run.stdout).toMatch(/key: prompt \(3 rows\), \(every string but the id\) \(2 rows\)/);
    expect(JSON.parse(readFileSync(f('dedup-default.json'), 'utf8'))).toMatchObject({ removed: 2, keyFields: { prompt: 3, '(every string but the id)': 2 } });
  });
});
