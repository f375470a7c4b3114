import { availableParallelism } from 'node:os';
import { phraseSpans } from '../curate/phrases';
import type { ScreenSpec } from '../curate/screen';
import { words } from '../curate/text';
import { startScanner } from '../cli/curate/scanner';
import { run as runDense } from './curate-dense';
import { heading, row, timed } from './timing';

/**
 * `verdict curate decontam`'s scan: a generated corpus of ~2 KB samples against 10 benchmarks × 500
 * items (20 sampled 8-word phrases each), on every core, beside a naive screen (a substring search
 * per phrase per sample, on one core) measured in the same run on a slice.
 */

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const random = lcg(7);
const VOCAB = Array.from({ length: 20000 }, (_, i) => {
  let w = '';
  for (let k = 0; k < 3 + (i % 7); k++) w += String.fromCharCode(97 + Math.floor(random() * 26));
  return w;
});
const phrase = (n: number) => Array.from({ length: n }, () => VOCAB[Math.floor(random() * VOCAB.length)]!).join(' ');

function benchmarks(): ScreenSpec & { form: 'words' } {
  return {
    form: 'words',
    threshold: 0.5,
    benchmarks: Array.from({ length: 10 }, (_, b) => ({
      name: `bench${b}`,
      items: Array.from({ length: 500 }, (_, i) => ({ id: `b${b}-${i}`, text: `Problem ${i}. ${phrase(120)}?` })),
      sampling: { n: 8, count: 20, exhaustive: false },
    })),
  };
}

/** A pool of distinct samples (~2 KB: a user turn and an assistant turn), one in 200 holding a benchmark item. */
function samplePool(spec: ScreenSpec & { form: 'words' }, size: number): string[] {
  return Array.from({ length: size }, (_, i) => {
    const body = phrase(330);
    if (i % 200 !== 0) return `user: ${body.slice(0, 700)}\nassistant: ${body.slice(700)}`;
    const item = spec.benchmarks[i % 10]!.items[(i / 200) % 500]!;
    return `user: Solve this. ${item.text}\nassistant: ${body.slice(0, 1200)}`;
  });
}

/** The naive screen: every item's sampled phrases searched in the lowercased text with String.includes. */
function naiveScreen(spec: ScreenSpec & { form: 'words' }): (text: string) => boolean {
  const items = spec.benchmarks.flatMap((b) =>
    b.items.map((item) => {
      const w = words(item.text);
      return phraseSpans(w.length, b.sampling).map((s) => w.slice(s.start, s.start + s.length).join(' '));
    }),
  );
  return (text) => {
    const lower = words(text).join(' ');
    return items.some((phrases) => phrases.filter((p) => lower.includes(p)).length >= 0.5 * phrases.length);
  };
}

export async function run(): Promise<void> {
  // `--dense-only`: only the dense-retrieval search (bench/curate-dense.ts), without the 8-gram scan.
  if (!process.argv.includes('--dense-only')) await runDecontam();
  await runDense();
}

async function runDecontam(): Promise<void> {
  const args = process.argv.slice(2);
  const at = args.indexOf('--samples');
  const total = at >= 0 ? Number(args[at + 1]) : 1_000_000;
  const threads = availableParallelism();
  heading(`curate decontam: ${total.toLocaleString('en')} samples of ~2 KB (a pool of 20,000 generated ones, cycled) vs 10 benchmarks × 500 items × 20 phrases`);
  const spec = benchmarks();
  const pool = samplePool(spec, 20_000);
  const poolBytes = pool.reduce((sum, t) => sum + Buffer.byteLength(t), 0);
  const widths = [44, 14, 12, 14];
  process.stdout.write(row(['path', 'samples/s', 'MB/s', 'MB/s per core'], widths) + '\n');

  const scanAll = async (workers: number, count: number) => {
    const scanner = startScanner({ spec, textFields: null }, workers);
    const depth = 2 * Math.max(1, workers);
    let removed = 0;
    const t = await timed(async () => {
      const inFlight: Array<Promise<unknown[]>> = [];
      for (let start = 0; start < count; start += 256) {
        const chunk: string[] = [];
        for (let k = start; k < Math.min(count, start + 256); k++) chunk.push(pool[k % pool.length]!);
        inFlight.push(scanner.scan({ texts: chunk }));
        while (inFlight.length >= depth) removed += (await inFlight.shift()!).filter((m) => m !== null).length;
      }
      for (const p of inFlight) removed += (await p).filter((m) => m !== null).length;
    });
    await scanner.close();
    const bytes = (poolBytes / pool.length) * count;
    return { seconds: t.seconds, removed, bytes };
  };

  const one = await scanAll(0, 40_000);
  const oneRate = one.bytes / one.seconds / 1e6;
  process.stdout.write(row(['indexed, 1 thread (40,000 samples)', Math.round(40_000 / one.seconds), oneRate.toFixed(1), oneRate.toFixed(1)], widths) + '\n');
  const all = await scanAll(threads, total);
  const allRate = all.bytes / all.seconds / 1e6;
  process.stdout.write(row([`indexed, ${threads} threads (${total.toLocaleString('en')} samples)`, Math.round(total / all.seconds), allRate.toFixed(1), (allRate / threads).toFixed(1)], widths) + '\n');
  const expected = Math.ceil(total / 200);
  process.stdout.write(`  removed ${all.removed.toLocaleString('en')} (${expected.toLocaleString('en')} samples hold an item)${all.removed === expected ? '' : '  ← MISMATCH'}\n`);

  const naive = naiveScreen(spec);
  const slice = 100;
  let naiveRemoved = 0;
  const n = await timed(async () => {
    for (let k = 0; k < slice; k++) if (naive(pool[k]!)) naiveRemoved++;
  });
  const naiveRate = (poolBytes / pool.length) * slice / n.seconds / 1e6;
  process.stdout.write(row([`naive includes() per phrase, 1 thread (${slice})`, (slice / n.seconds).toFixed(1), naiveRate.toFixed(3), naiveRate.toFixed(3)], widths) + '\n');
  process.stdout.write(`  naive removed ${naiveRemoved} of its ${slice} (indexed: ${Math.ceil(slice / 200)})\n`);
  process.stdout.write(`  indexed 1 thread ÷ naive 1 thread (samples/s, same machine, this run): ${(n.seconds / slice / (one.seconds / 40_000)).toFixed(0)}×\n`);
  process.stdout.write(`  indexed ${threads} threads ÷ naive 1 thread: ${(n.seconds / slice / (all.seconds / total)).toFixed(0)}×\n`);
}
