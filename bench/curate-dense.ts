import { availableParallelism } from 'node:os';
import { exactSearch, MetricKind } from 'usearch';
import { HNSW, NeighbourIndex, nearestSamples } from '../curate/neighbours';
import { heading, row, timed } from './timing';

/**
 * `verdict curate dense`'s search on precomputed vectors (the bench measures search, not
 * embedding): N training samples against M benchmark items of D dimensions, float32, cosine. The
 * vectors are clustered as real embeddings are (topics plus noise), and 1 sample in 100 is a
 * near-copy of a benchmark item. Measured in one run on the same vectors: the HNSW graph the
 * command uses, usearch's exact brute-force scan, and a plain JavaScript scan (one thread, a
 * slice); recall@k of HNSW against the exact scan on the first `--dense-recall` samples; and the
 * exact per-item pass (each item's k nearest samples) the command adds. The default size (50,000
 * samples, recall on 5,000) runs in a few minutes on 2 busy cores; `--dense-samples 1000000` is the
 * issue's full size (vectors are made chunk by chunk, so memory stays flat).
 */

const flag = (name: string, fallback: number): number => {
  const args = process.argv.slice(2);
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};

/** A fast deterministic uniform in [-0.5, 0.5): xorshift32. */
function xorshift(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296 - 0.5;
  };
}

export async function run(): Promise<void> {
  const samples = flag('--dense-samples', 50_000);
  const items = flag('--dense-items', 3_000);
  const dims = flag('--dims', 1_024);
  const k = flag('--k', 10);
  const recallSlice = Math.min(samples, flag('--dense-recall', 5_000));
  const threads = availableParallelism();
  heading(`curate dense: ${samples.toLocaleString('en')} training × ${items.toLocaleString('en')} benchmark vectors, ${dims} dims, k ${k}, ${threads} threads (--dense-samples, --dense-items, --dims, --k)`);
  const random = xorshift(42);
  const topics = 1_000;
  const centres = new Float32Array(topics * dims);
  for (let i = 0; i < centres.length; i++) centres[i] = random();
  const vector = (out: Float32Array, at: number, centre: Float32Array, from: number, noise: number) => {
    for (let j = 0; j < dims; j++) out[at + j] = centre[from + j]! + noise * random();
  };
  const bench = new Float32Array(items * dims);
  for (let i = 0; i < items; i++) vector(bench, i * dims, centres, ((random() + 0.5) * topics | 0) * dims, 0.8);
  /** Chunk c of the training vectors, the same every time it is made. */
  const chunkSize = 4_096;
  const makeChunk = (start: number, count: number) => {
    const out = new Float32Array(count * dims);
    const r = xorshift(1_000_003 + start);
    for (let s = 0; s < count; s++) {
      const copy = (start + s) % 100 === 0;
      const from = copy ? ((r() + 0.5) * items | 0) * dims : ((r() + 0.5) * topics | 0) * dims;
      const source = copy ? bench : centres;
      const noise = copy ? 0.1 : 0.8;
      for (let j = 0; j < dims; j++) out[s * dims + j] = source[from + j]! + noise * r();
    }
    return out;
  };

  const widths = [52, 14, 12];
  process.stdout.write(row(['path', 'samples/s', 'seconds'], widths) + '\n');
  const built = await timed(async () => new NeighbourIndex(bench, dims, 'hnsw', threads));
  const index = built.value;
  process.stdout.write(`  HNSW graph of ${items.toLocaleString('en')} items (connectivity ${HNSW.connectivity}, expansion add ${HNSW.expansionAdd} / search ${HNSW.expansionSearch}) built in ${built.seconds.toFixed(2)} s\n`);

  // Recall and the exact scan on the first slice.
  const slice = makeChunk(0, recallSlice);
  const hnswSlice = await timed(async () => index.search(slice, k));
  const exact = await timed(async () => exactSearch(bench, slice, dims, k, MetricKind.Cos, threads));
  let hits = 0;
  for (let q = 0; q < recallSlice; q++) {
    const truth = new Set<number>();
    for (let j = 0; j < k; j++) truth.add(Number(exact.value.keys[q * k + j]));
    for (const n of hnswSlice.value[q]!) if (truth.has(n.item)) hits++;
  }
  const recall = hits / (recallSlice * k);
  const reverse = await timed(async () => nearestSamples(bench, slice, dims, k, threads));
  void reverse.value;

  // The plain JavaScript scan, one thread, a few hundred samples.
  const jsCount = Math.min(200, recallSlice);
  const js = await timed(async () => {
    let checksum = 0;
    for (let q = 0; q < jsCount; q++) {
      let best = -2;
      for (let i = 0; i < items; i++) {
        let dot = 0;
        let nb = 0;
        let nq = 0;
        for (let j = 0; j < dims; j++) {
          const a = slice[q * dims + j]!;
          const b = bench[i * dims + j]!;
          dot += a * b;
          nb += b * b;
          nq += a * a;
        }
        best = Math.max(best, dot / Math.sqrt(nb * nq));
      }
      checksum += best;
    }
    return checksum;
  });

  // The HNSW search over every sample, chunk by chunk as the command does.
  let copiesFound = 0;
  const full = await timed(async () => {
    for (let start = 0; start < samples; start += chunkSize) {
      const count = Math.min(chunkSize, samples - start);
      const found = index.search(makeChunk(start, count), k);
      for (let s = 0; s < count; s++) if ((start + s) % 100 === 0 && (found[s]![0]?.similarity ?? 0) > 0.9) copiesFound++;
    }
  });
  // Making the vectors is part of the loop above: measured alone to take it out.
  const making = await timed(async () => {
    for (let start = 0; start < samples; start += chunkSize) makeChunk(start, Math.min(chunkSize, samples - start));
  });
  const hnswSeconds = Math.max(1e-9, full.seconds - making.seconds);
  const hnswRate = samples / hnswSeconds;
  const exactRate = recallSlice / exact.seconds;
  process.stdout.write(row([`HNSW (usearch), ${samples.toLocaleString('en')} samples`, Math.round(hnswRate), hnswSeconds.toFixed(1)], widths) + '\n');
  process.stdout.write(row([`HNSW (usearch), the first ${recallSlice.toLocaleString('en')}`, Math.round(recallSlice / hnswSlice.seconds), hnswSlice.seconds.toFixed(1)], widths) + '\n');
  process.stdout.write(row([`exact brute force (usearch SIMD), ${recallSlice.toLocaleString('en')}`, Math.round(exactRate), exact.seconds.toFixed(1)], widths) + '\n');
  process.stdout.write(row([`exact per-item k nearest (usearch), ${recallSlice.toLocaleString('en')}`, Math.round(recallSlice / reverse.seconds), reverse.seconds.toFixed(1)], widths) + '\n');
  process.stdout.write(row([`exact brute force (plain JS, 1 thread), ${jsCount}`, (jsCount / js.seconds).toFixed(1), js.seconds.toFixed(1)], widths) + '\n');
  process.stdout.write(`  recall@${k} against the exact scan, first ${recallSlice.toLocaleString('en')} samples: --search exact (the command's default) 1 by construction; --search hnsw ${recall.toFixed(4)}${recall >= 0.99 ? '' : ' (below 0.99: use it only where the benchmark side is too large to scan)'}\n`);
  process.stdout.write(`  near-copies found at cosine > 0.9: ${copiesFound.toLocaleString('en')} of ${Math.ceil(samples / 100).toLocaleString('en')}\n`);
  process.stdout.write(`  HNSW ÷ exact usearch scan (samples/s, same vectors, this run): ${(hnswRate / exactRate).toFixed(2)}×; HNSW ÷ plain JS scan: ${(hnswRate / (jsCount / js.seconds)).toFixed(0)}×\n`);
  const perItem = reverse.seconds / recallSlice;
  process.stdout.write(`  the command per sample, --search exact (default) + the exact per-item pass: ${Math.round(1 / (1 / exactRate + perItem))} samples/s; --search hnsw + the same: ${Math.round(1 / (1 / hnswRate + perItem))} samples/s\n`);
  process.stdout.write(`  1,000,000 samples at these rates: exact ${((1e6 * (1 / exactRate + perItem)) / 60).toFixed(0)} min, hnsw ${((1e6 * (1 / hnswRate + perItem)) / 60).toFixed(0)} min (${threads} threads)\n`);
}
