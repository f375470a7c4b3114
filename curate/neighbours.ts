import { exactSearch, Index, MetricKind, ScalarKind } from 'usearch';

/**
 * Nearest benchmark items of training samples by cosine similarity, through usearch (a maintained
 * SIMD vector-search library with prebuilt binaries for Node 20): its exact brute-force scan (the
 * default: at the few thousand items of AIME, HMMT and GPQA it measured as fast as HNSW, with
 * recall 1 — `npm run bench -- curate_dense`), or an HNSW graph over the benchmark side for much
 * larger benchmark sets. Vectors are float32 and the similarity is 1 − usearch's cosine distance,
 * so a threshold compares exact cosines, never a quantized estimate.
 */

export type SearchMethod = 'hnsw' | 'exact';

export interface Neighbour {
  /** Position of the item in the vectors the index was built from. */
  item: number;
  similarity: number;
}

/** HNSW parameters (usearch's defaults are 16 / 128 / 64; a wider search for recall); the bench reports the recall they give. */
export const HNSW = { connectivity: 16, expansionAdd: 128, expansionSearch: 128 } as const;

export class NeighbourIndex {
  private readonly index: Index | null;

  /** `items`: the benchmark vectors, `dims` each, laid end to end. */
  constructor(
    private readonly items: Float32Array,
    readonly dims: number,
    readonly method: SearchMethod,
    private readonly threads: number,
  ) {
    if (items.length % dims !== 0) throw new RangeError(`${items.length} floats are not whole vectors of ${dims}`);
    this.index = null;
    if (method === 'hnsw' && this.size > 0) {
      this.index = new Index({
        dimensions: dims,
        metric: MetricKind.Cos,
        quantization: ScalarKind.F32,
        connectivity: HNSW.connectivity,
        expansion_add: HNSW.expansionAdd,
        expansion_search: HNSW.expansionSearch,
        multi: false,
      });
      const keys = new BigUint64Array(this.size);
      for (let i = 0; i < this.size; i++) keys[i] = BigInt(i);
      this.index.add(keys, items, Math.max(1, threads));
    }
  }

  get size(): number {
    return this.items.length / this.dims;
  }

  /** The items, laid end to end (for the reverse, exact scan). */
  get vectors(): Float32Array {
    return this.items;
  }

  /** The k nearest items of each query (laid end to end), most similar first. */
  search(queries: Float32Array, k: number): Neighbour[][] {
    const count = queries.length / this.dims;
    const want = Math.min(k, this.size);
    if (count === 0 || want === 0) return Array.from({ length: count }, () => []);
    const threads = Math.max(1, this.threads);
    const matches = this.index ? this.index.search(queries, want, threads) : exactSearch(this.items, queries, this.dims, want, MetricKind.Cos, threads);
    const { keys, distances } = matches;
    const counts = 'counts' in matches ? matches.counts : null;
    const out: Neighbour[][] = [];
    for (let q = 0; q < count; q++) {
      const found = counts ? Number(counts[q]) : want;
      const row: Neighbour[] = [];
      for (let j = 0; j < found; j++) row.push({ item: Number(keys[q * want + j]), similarity: 1 - distances[q * want + j]! });
      out.push(row);
    }
    return out;
  }
}

/**
 * The k nearest of `samples` (vectors laid end to end) for each benchmark item: usearch's exact
 * scan with the items as queries, so an item's nearest samples are exact whatever the samples'
 * own nearest items are (an item in no sample's top k still shows its k nearest). It costs one
 * exact pass over the chunk, as much as an exact forward search would.
 */
export function nearestSamples(items: Float32Array, samples: Float32Array, dims: number, k: number, threads: number): Neighbour[][] {
  const count = items.length / dims;
  const want = Math.min(k, samples.length / dims);
  if (count === 0 || want === 0) return Array.from({ length: count }, () => []);
  const matches = exactSearch(samples, items, dims, want, MetricKind.Cos, Math.max(1, threads));
  const counts = 'counts' in matches ? matches.counts : null;
  const out: Neighbour[][] = [];
  for (let q = 0; q < count; q++) {
    const found = counts ? Number(counts[q]) : want;
    const row: Neighbour[] = [];
    for (let j = 0; j < found; j++) row.push({ item: Number(matches.keys[q * want + j]), similarity: 1 - matches.distances[q * want + j]! });
    out.push(row);
  }
  return out;
}

/**
 * The k most similar training samples seen so far per benchmark item: what a reviewer is shown
 * for every item, whether or not any pair passes the threshold. Fed with each sample's neighbours.
 */
export class ItemNeighbours<T> {
  private readonly best: Array<Array<{ similarity: number; sample: T }>>;

  constructor(
    items: number,
    private readonly k: number,
  ) {
    this.best = Array.from({ length: items }, () => []);
  }

  /** Whether the pair would enter item's list (call before building an expensive `sample`). */
  accepts(item: number, similarity: number): boolean {
    const list = this.best[item]!;
    return list.length < this.k || similarity > list[list.length - 1]!.similarity;
  }

  offer(item: number, similarity: number, sample: T): void {
    if (!this.accepts(item, similarity)) return;
    const list = this.best[item]!;
    let at = list.length;
    while (at > 0 && list[at - 1]!.similarity < similarity) at--;
    list.splice(at, 0, { similarity, sample });
    if (list.length > this.k) list.pop();
  }

  of(item: number): ReadonlyArray<{ similarity: number; sample: T }> {
    return this.best[item]!;
  }
}
