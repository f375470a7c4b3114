import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addSample, decide, newTally, parseInterval, type Mode } from '../../curate/learnability';
import { jsonl, readJsonl, readParquet, runCli, type Row } from '../dataset/helpers';

function tallyOf(samples: Array<['OK', number] | ['ABORTED'] | ['INVALID']>, mode: Mode = { kind: 'window', window: parseWindow('(0,0.8]') }) {
  const t = newTally();
  for (const s of samples) addSample(t, s[0], s[0] === 'OK' ? s[1] : null, 1, mode);
  return t;
}

function parseWindow(text: string) {
  const p = parseInterval(text);
  if (!p.ok) throw new Error(p.error);
  return p.interval;
}

const ok = (r: number): ['OK', number] => ['OK', r];
const window: Mode = { kind: 'window', window: parseWindow('(0,0.8]') };

describe('pass-rate gates (pure)', () => {
  it.each([
    [[0, 0, 0, 0], 'dropped', 'unlearnable'],
    [[1, 0, 0, 0], 'kept', 'in_window'],
    [[1, 1, 1, 1, 1, 0, 0, 0, 0, 0], 'kept', 'in_window'],
    [[1, 1, 1, 1, 0], 'kept', 'in_window'],
    [[1, 1, 1, 1, 1, 1, 1, 1, 1, 0], 'dropped', 'too_easy'],
    [[1, 1, 1, 1], 'dropped', 'too_easy'],
  ])('window (0,0.8]: rewards %j → %s (%s)', (rewards, decision, reason) => {
    expect(decide(tallyOf(rewards.map(ok)), window, 4)).toMatchObject({ decision, reason });
  });

  it('never counts an ABORTED or INVALID sample as a failure', () => {
    const t = tallyOf([ok(1), ok(1), ok(1), ok(1), ['ABORTED'], ['ABORTED'], ['ABORTED'], ['INVALID']]);
    expect(t).toMatchObject({ ok: 4, passed: 4, aborted: 3, invalid: 1 });
    expect(decide(t, window, 4)).toMatchObject({ decision: 'dropped', reason: 'too_easy', rate: 1 });
  });

  it('reports a prompt with too few OK samples as undecided instead of dropping it', () => {
    const t = tallyOf([ok(0), ok(0), ['ABORTED'], ['ABORTED'], ['ABORTED'], ['ABORTED']]);
    expect(decide(t, window, 4)).toMatchObject({ decision: 'undecided', reason: 'too_few_ok' });
  });

  it('drops a prompt whose samples are all INVALID (its label is broken), with that reason', () => {
    expect(decide(tallyOf([['INVALID'], ['INVALID']]), window, 4)).toMatchObject({ decision: 'dropped', reason: 'all_invalid' });
  });

  it('honours which ends of the window are included', () => {
    const t = tallyOf([ok(1), ok(0), ok(0), ok(0), ok(0)]); // 0.2
    expect(decide(t, { kind: 'window', window: parseWindow('[0.2,0.5]') }, 4).decision).toBe('kept');
    expect(decide(t, { kind: 'window', window: parseWindow('(0.2,0.5]') }, 4)).toMatchObject({ decision: 'dropped', reason: 'unlearnable' });
    const zero = tallyOf([ok(0), ok(0), ok(0), ok(0)]);
    expect(decide(zero, { kind: 'window', window: parseWindow('[0,0.5]') }, 4).decision).toBe('kept');
    expect(parseInterval('0,0.8').ok).toBe(false);
    expect(parseInterval('(0.9,0.1]').ok).toBe(false);
  });

  it('correctness keeps a prompt any sample solves, with partial credit counting', () => {
    const mode: Mode = { kind: 'correctness' };
    expect(decide(tallyOf([ok(0), ok(0.25)], mode), mode, 1)).toMatchObject({ decision: 'kept', reason: 'solvable' });
    expect(decide(tallyOf([ok(0), ok(0), ok(0), ok(0)], mode), mode, 1)).toMatchObject({ decision: 'dropped', reason: 'no_positive' });
  });

  it('count mode: 0 < c < 4 of the first 8 OK samples', () => {
    const mode: Mode = { kind: 'count', min: 1, max: 3, of: 8 };
    const run = (rewards: number[]) => decide(tallyOf(rewards.map(ok), mode), mode, 8);
    expect(run([1, 1, 1, 0, 0, 0, 0, 0])).toMatchObject({ decision: 'kept' });
    expect(run([1, 1, 1, 1, 0, 0, 0, 0])).toMatchObject({ decision: 'dropped', reason: 'count_outside' });
    expect(run([0, 0, 0, 0, 0, 0, 0, 0])).toMatchObject({ decision: 'dropped', reason: 'count_outside' });
    // Only the first 8 OK samples count: a ninth pass does not move the count.
    expect(run([1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1])).toMatchObject({ decision: 'kept' });
    expect(run([1, 0, 0, 0, 0, 0, 0])).toMatchObject({ decision: 'undecided' });
  });

  it('drop-all-pass drops only prompts every sample passes', () => {
    const mode: Mode = { kind: 'drop-all-pass' };
    expect(decide(tallyOf([1, 1, 1, 1].map(ok), mode), mode, 4)).toMatchObject({ decision: 'dropped', reason: 'all_pass' });
    expect(decide(tallyOf([1, 1, 1, 0].map(ok), mode), mode, 4)).toMatchObject({ decision: 'kept' });
    expect(decide(tallyOf([0, 0, 0, 0].map(ok), mode), mode, 4)).toMatchObject({ decision: 'kept' });
  });
});

/** Results of verdict score by hand: prompt p<k> gets the rewards given (null = ABORTED). */
function results(byPrompt: Record<string, Array<number | null>>): Row[] {
  return Object.entries(byPrompt).flatMap(([p, rewards]) =>
    rewards.map((r, i) =>
      r === null
        ? { id: `${p}-${i}`, groupId: p, status: 'STATUS_ABORTED', reason: 'sandbox_error', verifier: 'code' }
        : { id: `${p}-${i}`, groupId: p, status: 'STATUS_OK', reward: r, reason: r ? 'passed' : 'failed', verifier: 'code' },
    ),
  );
}

describe('verdict curate learnability', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'verdict-learn-'));
  const scored = path.join(dir, 'results.jsonl');
  writeFileSync(
    scored,
    jsonl(
      results({
        easy: [1, 1, 1, 1, 1, 1, 1, 1],
        good: [1, 0, 1, 0, 0, 0, 0, 0],
        dead: [0, 0, 0, 0, 0, 0, 0, 0],
        flaky: [1, null, null, null, null, null, null, 0],
        aborts: [1, 1, 1, 1, null, null, null, null],
      }),
    ),
  );
  // The prompt file, with spacing and key order a re-serialization would not keep.
  const promptLines = ['{"id": "easy",  "q": "2+2"}', '{"q":"x", "id":"good"}', '{"id":"dead","q":"?"}', '{"id":"flaky","q":"f"}', '{"id":"aborts","q":"a"}', '{"id":"orphan","q":"o"}'];
  const prompts = path.join(dir, 'prompts.jsonl');
  writeFileSync(prompts, promptLines.join('\n') + '\n');

  it('keeps the window, drops the rest with reasons, reports undecided apart, and leaves kept rows untouched', async () => {
    const out = (f: string) => path.join(dir, f);
    const run = await runCli(['curate', 'learnability', scored, '--prompts', prompts, '-o', out('kept.jsonl'), '--dropped', out('dropped.jsonl'), '--undecided', out('undecided.jsonl'), '--summary-json', out('summary.json')]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readFileSync(out('kept.jsonl'), 'utf8')).toBe(promptLines[1] + '\n');
    expect(readJsonl(out('dropped.jsonl')).map((r) => [r.key, r.reason])).toEqual([
      ['easy', 'too_easy'],
      ['dead', 'unlearnable'],
      // 4 OK samples all passing: the 4 ABORTED ones are not failures, so the prompt is too easy.
      ['aborts', 'too_easy'],
    ]);
    const undecided = readJsonl(out('undecided.jsonl'));
    expect(undecided.map((r) => [r.key, r.reason])).toEqual([
      ['flaky', 'too_few_ok'],
      ['orphan', 'no_results'],
    ]);
    expect(undecided[0]).toMatchObject({ ok: 2, aborted: 6, row: { id: 'flaky', q: 'f' } });
    const summary = JSON.parse(readFileSync(out('summary.json'), 'utf8')) as Row;
    expect(summary).toMatchObject({ kind: 'verdict.curate', command: 'learnability', prompts: 5, kept: 1, dropped: 3, undecided: 1, samples: { ok: 30, aborted: 10, invalid: 0 } });
    expect(run.stdout).toMatch(/kept 1, dropped 3, undecided 1/);
    expect(run.stdout).toMatch(/pass rate over OK samples/);
    expect(run.stdout).toMatch(/^\s+1 █+\s+2$/m);
  });

  it('runs the recipe\'s other gates as modes', async () => {
    const kept = async (args: string[]) => {
      const out = path.join(dir, `k-${args.join('-').replace(/[^a-z0-9]/gi, '')}.jsonl`);
      const run = await runCli(['curate', 'learnability', scored, '--min-ok', '2', '-o', out, ...args]);
      expect(run.code).toBe(0);
      return readJsonl(out).map((r) => r.key);
    };
    expect(await kept(['--mode', 'correctness'])).toEqual(['easy', 'good', 'flaky', 'aborts']);
    expect(await kept(['--mode', 'drop-all-pass'])).toEqual(['good', 'dead', 'flaky']);
    expect(await kept(['--mode', 'count', '--keep', '1..3', '--of', '8'])).toEqual(['good']);
    expect(await kept(['--window', '[0,0.5]'])).toEqual(['good', 'dead', 'flaky']);
  });

  it('keys prompts by any field', async () => {
    const file = path.join(dir, 'keyed.jsonl');
    writeFileSync(file, jsonl(results({ a: [1, 0, 0, 0], b: [1, 1, 1, 1] }).map((r) => ({ ...r, groupId: undefined, meta: { prompt: String(r.id).split('-')[0] } }))));
    const out = path.join(dir, 'keyed-out.jsonl');
    expect((await runCli(['curate', 'learnability', file, '--key', 'meta.prompt', '-o', out])).code).toBe(0);
    expect(readJsonl(out).map((r) => r.key)).toEqual(['a']);
    const missing = await runCli(['curate', 'learnability', file]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no result has a prompt id at "groupId"/);
  });

  it('scores rollouts on the way with --score, and reads and writes Parquet and zstd', async () => {
    const rollouts = path.join(dir, 'rollouts.jsonl');
    const rows = ['p1', 'p2'].flatMap((p) => ['A', 'B', 'C', 'D', 'C'].map((letter, i) => ({ id: `${p}-${i}`, groupId: p, verifier: 'qa', response: `\\boxed{${p === 'p1' ? letter : 'C'}}`, label: { choice: 'C' } })));
    writeFileSync(rollouts, jsonl(rows));
    const kept = path.join(dir, 'scored-kept.parquet');
    const keptResults = path.join(dir, 'scored-results.jsonl.zst');
    const run = await runCli(['curate', 'learnability', rollouts, '--score', '--workers', '0', '--results', keptResults, '-o', kept]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect((await readParquet(kept)).rows.map((r) => r.key)).toEqual(['p1']);
    const again = await runCli(['curate', 'learnability', keptResults, '--dropped', path.join(dir, 'd.jsonl.gz')]);
    expect(again.stdout).toMatch(/kept 1, dropped 1/);
  });

  it('names the line of a row that is not a result', async () => {
    const bad = path.join(dir, 'bad.jsonl');
    writeFileSync(bad, jsonl(results({ a: [1] })) + '{"id":"x","groupId":"a","status":"DONE"}\n');
    const run = await runCli(['curate', 'learnability', bad]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bad\.jsonl:2: status: expected STATUS_OK/);
  });
});
