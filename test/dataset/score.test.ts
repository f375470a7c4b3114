import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { decompress as zstdDecompress } from 'fzstd';
import { jsonl, parquetTool, qaRows, readJsonl, readParquet, runCli, type Row } from './helpers';

const dir = mkdtempSync(path.join(tmpdir(), 'verdict-dataset-'));
const file = (name: string) => path.join(dir, name);
const parseLines = (text: string): Row[] => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Row);

describe('verdict score: formats', () => {
  const rows = qaRows(40, (i) => ({ data_source: `src${i % 3}`, extra: { n: i } }));
  let reference: Row[];

  beforeAll(async () => {
    writeFileSync(file('in.jsonl'), jsonl(rows));
    const run = await runCli(['score', file('in.jsonl'), '-o', file('ref.jsonl'), '--workers', '0', '--batch-size', '7']);
    expect(run.code).toBe(0);
    reference = readJsonl(file('ref.jsonl'));
  });

  it('JSONL: each result carries its line, the receipt, and the unmapped columns untouched', () => {
    expect(reference).toHaveLength(40);
    expect(reference.map((r) => r.line)).toEqual(rows.map((_, i) => i + 1));
    expect(reference[2]).toMatchObject({ id: 'q2', line: 3, status: 'STATUS_OK', reward: 1, reason: 'correct_choice', data_source: 'src2', extra: { n: 2 } });
    expect(reference[2]!.receipt).toEqual({ verifier: 'qa@1.4.0', config: expect.stringMatching(/^[0-9a-f]{16}$/), input: expect.stringMatching(/^[0-9a-f]{16}$/) });
    // Equal samples but for the id hash alike; different responses differently.
    expect((reference[2]!.receipt as Row).input).toBe((reference[6]!.receipt as Row).input);
    expect((reference[2]!.receipt as Row).input).not.toBe((reference[3]!.receipt as Row).input);
  });

  it('reads gzip input and writes gzip, zstd and Parquet output with the same results', async () => {
    writeFileSync(file('in.jsonl.gz'), gzipSync(jsonl(rows)));
    for (const out of ['out.jsonl.gz', 'out.jsonl.zst', 'out.parquet']) {
      const run = await runCli(['score', file('in.jsonl.gz'), '-o', file(out), '--workers', '0', '--batch-size', '7']);
      expect(run.code).toBe(0);
    }
    expect(parseLines(gunzipSync(readFileSync(file('out.jsonl.gz'))).toString())).toEqual(reference);
    expect(parseLines(Buffer.from(zstdDecompress(readFileSync(file('out.jsonl.zst')))).toString())).toEqual(reference);
    const parquet = await readParquet(file('out.parquet'));
    expect(parquet.schema).toEqual(expect.arrayContaining(['id', 'line', 'status', 'reward', 'reason', 'details', 'receipt', 'data_source', 'extra']));
    // Parquet has a column for every field: absent optional fields read back as null.
    const dropNulls = (r: Row) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null));
    expect(parquet.rows.map(dropNulls)).toEqual(reference);
  });

  it('--format overrides the extension; zstd input is read', async () => {
    writeFileSync(file('gz-named.data'), gzipSync(jsonl(rows)));
    const run = await runCli(['score', file('gz-named.data'), '--format', 'jsonl.gz', '-o', file('from-data.jsonl'), '--workers', '0', '--batch-size', '7']);
    expect(run.code).toBe(0);
    expect(readJsonl(file('from-data.jsonl'))).toEqual(reference);
    const back = await runCli(['score', file('out.jsonl.zst'), '-o', file('zst-in.jsonl'), '--workers', '0', '--max-invalid', '1']);
    // Results are not samples: each row is read and judged (proving the .zst was decoded row by row).
    expect(readJsonl(file('zst-in.jsonl'))).toHaveLength(40);
    expect(back.code).toBe(1);
  });

  it('--no-keep-columns drops unmapped columns', async () => {
    const run = await runCli(['score', file('in.jsonl'), '-o', file('bare.jsonl'), '--workers', '0', '--no-keep-columns']);
    expect(run.code).toBe(0);
    expect(Object.keys(readJsonl(file('bare.jsonl'))[0]!)).toEqual(['id', 'line', 'status', 'reward', 'reason', 'verifier', 'verifierVersion', 'details', 'receipt']);
  });
});

describe('verdict score: mapping', () => {
  const verl = [
    { data_source: 'openai/gsm8k', prompt: [{ role: 'user', content: '2+2?' }], reward_model: { style: 'rule', ground_truth: '4' }, responses: ['\\boxed{4}', '\\boxed{5}', 'so \\boxed{4}'], extra_info: { index: 7, split: 'train' } },
    { data_source: 'sciq', prompt: [{ role: 'user', content: 'Which?' }], reward_model: { style: 'rule', ground_truth: 'C' }, responses: ['\\boxed{C}', '\\boxed{A}'], extra_info: { index: 8, split: 'train' } },
    { data_source: 'nowhere', prompt: [{ role: 'user', content: '?' }], reward_model: { style: 'rule', ground_truth: 'x' }, responses: ['x'], extra_info: { index: 9, split: 'test' } },
    { data_source: 'sciq', prompt: [{ role: 'user', content: 'Which?' }], reward_model: { style: 'rule', ground_truth: 'C' }, responses: null, extra_info: { index: 10, split: 'train' } },
  ];

  it('--preset verl on a verl-shaped Parquet file: one sample per rollout with its group, routes, nested columns passed through', async () => {
    await parquetTool(['verl', file('verl.parquet')], JSON.stringify(verl));
    const run = await runCli([
      'score', file('verl.parquet'), '--preset', 'verl', '--route', 'openai/gsm8k=math:gold', '--route', 'sciq=qa:choice',
      '-o', file('verl-out.parquet'), '--workers', '0', '--max-invalid', '0.5', '--group-options', '{"advantage":"mean"}',
    ]);
    expect(run.code).toBe(0);
    const { rows } = await readParquet(file('verl-out.parquet'));
    expect(rows.map((r) => [r.line, r.rollout, r.verifier, r.status, r.reward])).toEqual([
      [1, 0, 'math', 'STATUS_OK', 1],
      [1, 1, 'math', 'STATUS_OK', 0],
      [1, 2, 'math', 'STATUS_OK', 1],
      [2, 0, 'qa', 'STATUS_OK', 1],
      [2, 1, 'qa', 'STATUS_OK', 0],
      [3, null, '', 'STATUS_INVALID', null],
      [4, null, 'qa', 'STATUS_INVALID', null],
    ]);
    // The rollouts of a row are one group: mean-baseline advantages within it.
    const advantages = rows.slice(0, 3).map((r) => r.advantage as number);
    [1 / 3, -2 / 3, 1 / 3].forEach((a, i) => expect(advantages[i]).toBeCloseTo(a, 12));
    expect(rows[5]!.reason).toBe('line 3: verifier: none for data_source "nowhere" (add --route nowhere=VERIFIER[:LABEL_FIELD], --verifier NAME, or a "verifier" key in the label)');
    expect(rows[6]!.reason).toBe('line 4: responses: required (a string or a list of strings)');
    expect(rows[0]).toMatchObject({ data_source: 'openai/gsm8k', reward_model: { style: 'rule', ground_truth: '4' }, extra_info: { index: 7, split: 'train' } });
    expect(rows[0]).not.toHaveProperty('responses');
    expect(run.stdout).toMatch(/math\s+mean reward 0\.6667 over 3 ok samples/);
  });

  it('explicit fields with dotted paths and a default verifier, on JSONL', async () => {
    writeFileSync(
      file('custom.jsonl'),
      jsonl([
        { uid: 'u1', out: { text: 'The answer is mitochondria' }, gt: { answers: ['mitochondria'] }, grp: 'g' },
        { uid: 'u2', out: { text: '\\boxed{golgi}' }, gt: { answers: ['mitochondria'] }, grp: 'g' },
      ]),
    );
    const run = await runCli(['score', file('custom.jsonl'), '--response-field', 'out.text', '--label-field', 'gt', '--id-field', 'uid', '--group-field', 'grp', '--verifier', 'qa', '-o', file('custom-out.jsonl'), '--workers', '0']);
    expect(run.code).toBe(0);
    const out = readJsonl(file('custom-out.jsonl'));
    expect(out.map((r) => [r.id, r.line, r.reward])).toEqual([['u1', 1, 1], ['u2', 2, 0]]);
    expect(out[0]).toMatchObject({ out: { text: 'The answer is mitochondria' } });
    expect(out[0]).not.toHaveProperty('gt');
  });

  it('a row of n rollouts is scored whole even past --batch-size', async () => {
    writeFileSync(file('rollouts.jsonl'), jsonl([{ responses: ['\\boxed{C}', '\\boxed{A}', 'Answer: C'], label: { choice: 'C' } }, { responses: ['\\boxed{B}'], label: { choice: 'C' } }]));
    const run = await runCli(['score', file('rollouts.jsonl'), '--response-field', 'responses', '--verifier', 'qa', '--batch-size', '1', '-o', file('rollouts-out.jsonl'), '--workers', '0']);
    expect(run.code).toBe(0);
    expect(readJsonl(file('rollouts-out.jsonl')).map((r) => [r.line, r.rollout, r.reward])).toEqual([[1, 0, 1], [1, 1, 0], [1, 2, 1], [2, 0, 0]]);
  });

  it('a bad --route or preset is a usage error', async () => {
    const route = await runCli(['score', file('custom.jsonl'), '--route', 'nonsense']);
    expect(route.code).toBe(2);
    expect(route.stderr).toMatch(/--route "nonsense": expected VALUE=VERIFIER\[:LABEL_FIELD\]/);
    const preset = await runCli(['score', file('custom.jsonl'), '--preset', 'trl']);
    expect(preset.code).not.toBe(0);
    expect(preset.stderr).toMatch(/--preset.*trl/);
  });
});

describe('verdict score: exit status and summary', () => {
  it('fails when nothing is OK, printing the top reasons; --max-invalid sets the INVALID share allowed', async () => {
    writeFileSync(file('wrong-layout.jsonl'), jsonl(Array.from({ length: 5 }, (_, i) => ({ question: `q${i}`, answer: 'x' }))));
    const none = await runCli(['score', file('wrong-layout.jsonl'), '-o', file('none.jsonl'), '--workers', '0']);
    expect(none.code).toBe(1);
    expect(none.stdout).toMatch(/verdict score failed: no sample was scored OK/);
    expect(none.stdout).toMatch(/top INVALID reasons:\n\s+5\s+verifier: required/);
    expect(readJsonl(file('none.jsonl'))[0]).toMatchObject({ line: 1, status: 'STATUS_INVALID', reason: 'line 1: verifier: required', question: 'q0' });

    writeFileSync(file('some-bad.jsonl'), jsonl([...qaRows(9), { id: 'bad', verifier: 'qa', response: 'x', label: { answers: [true] } }]));
    const strict = await runCli(['score', file('some-bad.jsonl'), '-o', file('sb.jsonl'), '--workers', '0']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/1 of 10 samples are INVALID \(10\.0%, --max-invalid 0\.05\)/);
    const lenient = await runCli(['score', file('some-bad.jsonl'), '-o', file('sb.jsonl'), '--workers', '0', '--max-invalid', '0.1']);
    expect(lenient.code).toBe(0);
  });

  it('--summary-json: per verifier × status × reason with count, mean reward and latency percentiles', async () => {
    writeFileSync(file('sum.jsonl'), jsonl(qaRows(8)));
    const run = await runCli(['score', file('sum.jsonl'), '-o', file('sum-out.jsonl'), '--workers', '0', '--summary-json', file('summary.json')]);
    expect(run.code).toBe(0);
    const summary = JSON.parse(readFileSync(file('summary.json'), 'utf8')) as { total: number; ok: number; rows: Row[] };
    expect(summary).toMatchObject({ total: 8, ok: 8, interrupted: false });
    expect(summary.rows.map((r) => [r.verifier, r.status, r.reason, r.count, r.meanReward])).toEqual([
      ['qa', 'OK', 'wrong_choice', 6, 0],
      ['qa', 'OK', 'correct_choice', 2, 1],
    ]);
    for (const row of summary.rows) expect(row.p99Ms as number).toBeGreaterThanOrEqual(row.p50Ms as number);
    expect(run.stdout).toMatch(/qa\s+OK\s+6\s+0\.0000\s+\S+\s+\S+\s+wrong_choice/);
  });
});

describe('verdict score --tokenizer', () => {
  /** A WordPiece tokenizer.json built here: whole words from a small vocabulary, letters otherwise. */
  function writeTokenizer(at: string): void {
    const vocab: Record<string, number> = { '[UNK]': 0, the: 1, answer: 2, is: 3 };
    for (const c of 'abcdefghijklmnopqrstuvwxyz{}\\') vocab[c] = Object.keys(vocab).length;
    for (const c of 'abcdefghijklmnopqrstuvwxyz{}\\') vocab[`##${c}`] = Object.keys(vocab).length;
    const json = {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: [],
      normalizer: { type: 'Lowercase' },
      pre_tokenizer: { type: 'Whitespace' },
      post_processor: null,
      decoder: null,
      model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
    };
    writeFileSync(at, JSON.stringify(json));
  }

  it('counts response_tokens so the length penalty works offline; without it those rows are INVALID', async () => {
    writeTokenizer(file('tokenizer.json'));
    const rows = [
      { id: 'short', verifier: 'qa', groupId: 'g', response: 'the answer is c', label: { answers: ['c'] } },
      { id: 'long', verifier: 'qa', groupId: 'g', response: 'the the the the the the the the answer is c', label: { answers: ['c'] } },
    ];
    writeFileSync(file('untokenized.jsonl'), jsonl(rows));
    const options = JSON.stringify({ lengthPenalty: true, maxLength: 12, lengthPenaltyMax: 0.5 });
    const without = await runCli(['score', file('untokenized.jsonl'), '-o', file('tok0.jsonl'), '--workers', '0', '--group-options', options]);
    expect(without.code).toBe(1);
    expect(without.stdout).toMatch(/response_tokens: required/);
    const run = await runCli(['score', file('untokenized.jsonl'), '-o', file('tok.jsonl'), '--workers', '0', '--group-options', options, '--tokenizer', file('tokenizer.json')]);
    expect(run.code).toBe(0);
    const out = readJsonl(file('tok.jsonl'));
    // 4 and 11 tokens: the short one is L*, the long one is penalized 0.5 × (11 − 4) / (12 − 4).
    expect(out.map((r) => r.reward)).toEqual([1, 1 - 0.5 * (7 / 8)]);
  });

  it('a tokenizer file that cannot be read is named', async () => {
    writeFileSync(file('broken-tokenizer.json'), '{');
    const run = await runCli(['score', file('untokenized.jsonl'), '--tokenizer', file('broken-tokenizer.json')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--tokenizer: \S+broken-tokenizer\.json/);
  });
});
