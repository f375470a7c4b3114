import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Sample } from '../core/sample';
import { Engine } from '../services/engine/engine';
import { PoolExecutor } from '../services/pool/executor';
import { clearGoldCache, mathLabel, scoreMath, type MathLabel } from '../verifiers/math';
import { VERDICT_VERIFIERS } from '../services/pool-entry';
import { createRegistry } from '../verifiers';
import { bestOf, heading, percentile, row } from './timing';

/** One row of ../shared/bench/math_batch_4096.jsonl (its README describes the fields). */
interface BatchRow {
  id: string;
  response: string;
  gold: string;
  expected: boolean;
  intended: boolean;
  kind: string;
}

/**
 * Math-Verify 0.8.0 on this batch, single process, measured interleaved with Verdict on this kind
 * of machine (../shared/bench/README.md). It cannot run here, so its figure is fixed and printed
 * with its date; the machines differ by up to ~2× from day to day, which is why the naive path,
 * measured in this run, is printed beside it.
 */
const MATH_VERIFY = { samplesPerS: 62.5, date: '2026-12-03', source: '../shared/bench/README.md' };
/** The goal is 100× Math-Verify, against the figure above. */
const GOAL_SAMPLES_PER_S = 100 * MATH_VERIFY.samplesPerS;

function batchPath(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return path.resolve(dir, '..', 'shared', 'bench', 'math_batch_4096.jsonl');
}

export function loadMathRows(file = batchPath()): BatchRow[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as BatchRow);
}

/** The batch as Samples for the engine (verifier `math`, label `{gold}`); groups are runs of one gold. */
export function loadMathBatch(file = batchPath()): Sample[] {
  return loadMathRows(file).map((r) => ({
    id: r.id,
    verifier: 'math',
    response: r.response,
    label: { gold: r.gold },
    groupId: r.gold,
    responseTokens: r.response.length >> 2,
    metadata: {},
  }));
}

interface Pass {
  seconds: number;
  latenciesMs: number[];
  verdicts: boolean[];
}

/** One single-threaded pass; `cold` empties the gold cache before every sample (the naive path). */
function pass(rows: BatchRow[], labels: MathLabel[], cold: boolean): Pass {
  clearGoldCache();
  const latenciesMs: number[] = [];
  const verdicts: boolean[] = [];
  const start = process.hrtime.bigint();
  for (let i = 0; i < rows.length; i++) {
    if (cold) clearGoldCache();
    const t0 = process.hrtime.bigint();
    const outcome = scoreMath((rows[i] as BatchRow).response, labels[i] as MathLabel);
    latenciesMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
    verdicts.push(outcome.status === 'OK' && outcome.reward === 1);
  }
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, latenciesMs, verdicts };
}

function median(passes: Pass[]): Pass {
  return [...passes].sort((a, b) => a.seconds - b.seconds)[Math.floor(passes.length / 2)] as Pass;
}

export async function run(): Promise<void> {
  heading('math: 4,096 responses of ../shared/bench/math_batch_4096.jsonl');
  const rows = loadMathRows();
  const labels = rows.map((r) => mathLabel.parse({ gold: r.gold }));
  pass(rows, labels, false); // warm-up: JIT, not the gold cache (every pass starts with it empty)

  process.stdout.write(
    `naive: gold parsed for every sample, measured now; Math-Verify: ${MATH_VERIFY.samplesPerS} samples/s, ${MATH_VERIFY.source} (measured ${MATH_VERIFY.date})\n`,
  );
  const widths = [44, 11, 9, 9, 9, 10, 15];
  process.stdout.write(row(['path (one thread)', 'samples/s', 'p50 ms', 'p99 ms', 'max ms', 'vs naive', 'vs Math-Verify'], widths) + '\n');
  const naive = median([1, 2, 3].map(() => pass(rows, labels, true)));
  const cached = median([1, 2, 3].map(() => pass(rows, labels, false)));
  const naiveRate = rows.length / naive.seconds;
  for (const [name, p] of [
    ['naive: gold parsed for every sample', naive],
    ['Verdict: gold parsed once per worker', cached],
  ] as const) {
    const sorted = [...p.latenciesMs].sort((a, b) => a - b);
    const rate = rows.length / p.seconds;
    process.stdout.write(
      row(
        [name, rate.toFixed(0), percentile(sorted, 50).toFixed(3), percentile(sorted, 99).toFixed(3), (sorted[sorted.length - 1] ?? 0).toFixed(2), `${(rate / naiveRate).toFixed(2)}x`, `${(rate / MATH_VERIFY.samplesPerS).toFixed(0)}x`],
        widths,
      ) + '\n',
    );
  }
  const rate = rows.length / cached.seconds;
  process.stdout.write(
    `goal ≥ ${GOAL_SAMPLES_PER_S} samples/s (100× Math-Verify's ${MATH_VERIFY.samplesPerS} of ${MATH_VERIFY.date}) with p99 < 1 ms: ` +
      `${rate >= GOAL_SAMPLES_PER_S && percentile([...cached.latenciesMs].sort((a, b) => a - b), 99) < 1 ? 'met' : 'NOT met'}\n`,
  );

  const agreeExpected = cached.verdicts.filter((v, i) => v === rows[i]?.expected).length;
  const agreeIntended = cached.verdicts.filter((v, i) => v === rows[i]?.intended).length;
  process.stdout.write(
    `agreement with Math-Verify's verdict (expected): ${agreeExpected}/${rows.length} = ${((100 * agreeExpected) / rows.length).toFixed(2)}%\n` +
      `agreement with the generator's intent (intended): ${agreeIntended}/${rows.length} = ${((100 * agreeIntended) / rows.length).toFixed(2)}%\n`,
  );
  const byKind = new Map<string, { verdict: boolean; expected: boolean; intended: boolean; n: number }>();
  cached.verdicts.forEach((v, i) => {
    const r = rows[i] as BatchRow;
    if (v === r.expected && v === r.intended) return;
    const key = `${r.kind}|${v}|${r.expected}|${r.intended}`;
    const entry = byKind.get(key) ?? { verdict: v, expected: r.expected, intended: r.intended, n: 0 };
    entry.n++;
    byKind.set(key, entry);
  });
  for (const [key, e] of byKind) {
    process.stdout.write(`  ${key.split('|')[0]}: Verdict ${e.verdict}, Math-Verify ${e.expected}, intended ${e.intended}: ${e.n} rows\n`);
  }

  // The same batch through the engine on the worker pool (two threads on this machine).
  const registry = createRegistry();
  const samples = loadMathBatch();
  const engine = new Engine({ registry, executor: new PoolExecutor(VERDICT_VERIFIERS, 2) });
  try {
    // Warm (every thread's JIT and gold cache), then the best of five runs, as the one-thread figures.
    for (let i = 0; i < 3; i++) await engine.score(samples);
    const { seconds } = await bestOf(5, () => engine.score(samples));
    process.stdout.write(`worker pool (2 threads, engine.score, best of 5): ${(samples.length / seconds).toFixed(0)} samples/s\n`);
  } finally {
    await engine.close();
  }
}

if (require.main === module) void run();
