import type { JsonObject } from '../../core/json';
import { DecisionBook, parseDecision, type Decision } from '../../curate/decisions';
import type { SearchMethod } from '../../curate/neighbours';
import { sharedSpans } from '../../curate/overlap';
import { PhraseIndex } from '../../curate/phrase-index';
import { rowText } from '../../curate/text';
import { EmbeddingCache, EmbeddingsClient, textKey, type EmbeddingsEndpoint } from '../../services/embeddings';
import { openLines, parseJsonLine } from '../dataset/read';
import { loadBenchmarks, sampleId, type ScreenInput } from './decontam';
import { checkOutputs, finishOutputs, keptOutput, maybeOutput, openInput, progressFor, rowOrThrow, type OpenedInput, type Output, type OutputSpec } from './io';

/**
 * `verdict curate dense`: the recipe's dense-retrieval detector. Every benchmark item and every
 * training sample is embedded through an OpenAI-compatible endpoint (cached in SQLite by model and
 * text, so a re-run or a killed run asks only for what it lacks), each sample's k nearest items are
 * found with usearch, and the pairs a person must look at are written with both texts: every pair
 * at or above the cosine threshold, and each item's k nearest samples whatever their similarity.
 * Each pair says whether the 8-gram screens (sampled and exhaustive) flag it too, and where the two
 * texts share runs of words, for the review page. With `--decisions`, the reviewed file is applied:
 * samples confirmed contaminated are dropped, with the decision beside them.
 */

/** The shared screen fields (`-o` and `--removed` act only with `decisions`). */
export interface DenseOptions extends ScreenInput {
  endpoint: EmbeddingsEndpoint;
  cachePath: string;
  k: number;
  threshold: number;
  search: SearchMethod;
  /** The 8-gram screens' settings, for the flag each pair carries. */
  ngram: { n: number; phrases: number; threshold: number };
  /** Words in a run that the review page marks as shared. */
  spanWords: number;
  workers: number;
  /** Training samples embedded and searched together. */
  chunk: number;
  candidates?: string;
  decisions?: string;
}

/** A pair shown for review. */
export interface CandidatePair extends JsonObject {
  benchmark: string;
  itemId: string;
  /** SHA-256 of the sample's embedded text: the key decisions name. */
  sample: string;
  line: number;
  id: string | null;
  similarity: number;
  /** Why it is shown: at or above the threshold, and/or among the item's k nearest samples. */
  reasons: string[];
  ngram: { sampled: boolean; exhaustive: boolean };
  itemText: string;
  sampleText: string;
  /** Character spans of runs of at least `spanWords` words the two texts share. */
  spans: { sample: Array<[number, number]>; item: Array<[number, number]> };
  decision: Decision | null;
}

export interface DenseBenchmarkReport extends JsonObject {
  benchmark: string;
  items: number;
  /** Items with no text: not embedded, never in a pair. */
  emptyItems: number;
  /** Pairs at or above the threshold. */
  aboveThreshold: number;
  /** Pairs shown (above the threshold, or among an item's k nearest). */
  pairs: number;
  /** Pairs the sampled or exhaustive 8-gram screen flags too. */
  ngramFlagged: number;
  contaminated: number;
  benign: number;
  undecided: number;
}

export interface DenseReport extends JsonObject {
  kind: 'verdict.curate';
  version: 1;
  command: 'dense';
  input: string;
  options: JsonObject;
  samples: number;
  /** Samples with no text: not embedded, never a candidate. */
  emptySamples: number;
  embedding: { endpoint: string; model: string; dimensions: number | null; cached: number; embedded: number; cachePath: string };
  benchmarks: DenseBenchmarkReport[];
  /** With --decisions: samples dropped (confirmed contaminated) and kept. */
  dropped: number | null;
  kept: number | null;
  decisions: { file: string; pairs: number; reviewers: string[] } | null;
  pairs: CandidatePair[];
  seconds: number;
}

interface Sample {
  line: number;
  id: string | null;
  text: string;
  key: string;
}

async function readDecisions(path: string): Promise<DecisionBook> {
  const book = new DecisionBook();
  const lines = openLines(path, 'jsonl');
  for await (const entry of lines.lines) {
    if (entry.text.trim() === '') continue;
    const row = parseJsonLine(entry.text, entry.line);
    if ('error' in row) throw new Error(`--decisions ${path}:${entry.line}: ${row.error}`);
    const parsed = parseDecision(row.value);
    if (!parsed.ok) throw new Error(`--decisions ${path}:${entry.line}: ${parsed.error}`);
    book.add(parsed.decision);
  }
  return book;
}

const pairOf = (item: number, key: string) => `${item}:${key}`;

type LoadedBenchmarks = Awaited<ReturnType<typeof loadBenchmarks>>;
type Item = LoadedBenchmarks[number]['items'][number] & { pass: number };
/** A pair found by the search, before it is written out for review. */
interface Found {
  item: number;
  similarity: number;
  sample: Sample;
  reasons: string[];
}

export async function dense(options: DenseOptions): Promise<DenseReport> {
  const started = Date.now();
  const outputs = { kept: keptOutput(options.output, options.outputFormat), removed: { path: options.removed, option: '--removed' }, candidates: { path: options.candidates, option: '--candidates' } };
  checkOutputs(...Object.values(outputs));
  const loaded = await loadBenchmarks(options.benchmarks, options.benchmarkFields, options.benchmarkIdField);
  // An item with no text has nothing to embed (servers refuse an empty input): counted, not searched.
  const items: Item[] = loaded.flatMap((b, pass) => b.items.map((item) => ({ ...item, pass }))).filter((item) => item.text.trim() !== '');
  if (items.length === 0) throw new Error('--benchmark: no item with text to compare against');
  const book = options.decisions ? await readDecisions(options.decisions) : null;
  const cache = new EmbeddingCache(options.cachePath);
  const client = new EmbeddingsClient(options.endpoint, cache);
  const input = await openInput(options.input, options.format, 'input');
  const kept = maybeOutput(outputs.kept, input);
  const removed = maybeOutput(outputs.removed, null);
  let ok = false;
  try {
    const search = await searchSamples(options, input, { kept, removed }, items, client, book);
    const pairs = reviewPairs(search.found, items, loaded, options, book);
    await writeCandidates(outputs.candidates, pairs);
    ok = true;
    return {
      kind: 'verdict.curate',
      version: 1,
      command: 'dense',
      input: options.input,
      options: { k: options.k, threshold: options.threshold, search: options.search, textFields: options.textFields, ngram: options.ngram, spanWords: options.spanWords },
      samples: search.samples,
      emptySamples: search.empty,
      embedding: { endpoint: options.endpoint.name, model: options.endpoint.model, dimensions: client.dimensions, cached: search.cached, embedded: search.embedded, cachePath: options.cachePath },
      benchmarks: loaded.map((b) => benchmarkReport(b, pairs)),
      dropped: book ? search.dropped : null,
      kept: book ? search.samples - search.dropped : null,
      decisions: book && options.decisions ? { file: options.decisions, pairs: book.byPair.size, reviewers: [...new Set([...book.byPair.values()].map((d) => d.reviewer))].sort() } : null,
      pairs,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    // Outputs take their names only when the run completed (cli/curate/io.ts).
    await finishOutputs(ok, kept, removed);
    cache.close();
  }
}

/**
 * One pass over the input: every item and sample embedded, each sample's neighbours searched, and
 * (with decisions) the samples written to `-o` or `--removed` (named by the caller once all is done). Returns the pairs to review: those at
 * or above the threshold, and every item's k nearest samples.
 */
async function searchSamples(
  options: DenseOptions,
  input: OpenedInput,
  outputs: { kept: Output | null; removed: Output | null },
  items: readonly Item[],
  client: EmbeddingsClient,
  book: DecisionBook | null,
): Promise<{ found: Map<string, Found>; samples: number; empty: number; dropped: number; cached: number; embedded: number }> {
  // usearch's native module is loaded by this command only, not by every start of the CLI.
  const { ItemNeighbours, NeighbourIndex, nearestSamples } = await import('../../curate/neighbours');
  const confirmed = book?.confirmed() ?? new Map<string, Decision[]>();
  const { kept, removed } = outputs;
  const progress = progressFor(input.source, options.progress, 'embedding', ['samples', 'cached', 'embedded', 'candidates']);
  const totals = { samples: 0, empty: 0, dropped: 0, cached: 0, embedded: 0 };
  const above = new Map<string, { item: number; similarity: number; sample: Sample }>();
  // Cached and embedded texts over the run: each call's last count added once it returns.
  const embed = async (texts: readonly string[]) => {
    let last = { cached: 0, embedded: 0 };
    const vectors = await client.embed(texts, (p) => {
      last = { ...p };
      progress?.update(totals.samples, { samples: totals.samples, cached: totals.cached + last.cached, embedded: totals.embedded + last.embedded, candidates: above.size });
    });
    totals.cached += last.cached;
    totals.embedded += last.embedded;
    return vectors;
  };
  type Entry = { row: Parameters<Output['row']>[0]; sample: Sample };
  try {
    const itemVectors = await embed(items.map((i) => i.text));
    const dims = client.dimensions!;
    const flat = new Float32Array(items.length * dims);
    itemVectors.forEach((v, i) => flat.set(v, i * dims));
    const index = new NeighbourIndex(flat, dims, options.search, options.workers);
    const nearest = new ItemNeighbours<Sample>(items.length, options.k);

    const handle = async (entries: Entry[]) => {
      // A sample with no text has nothing to embed (servers refuse an empty input) and no neighbour.
      const searched = entries.filter((e) => e.sample.text.trim() !== '');
      const vectors = await embed(searched.map((e) => e.sample.text));
      const queries = new Float32Array(searched.length * dims);
      vectors.forEach((v, i) => queries.set(v, i * dims));
      const results = index.search(queries, options.k);
      const found = new Map(searched.map((e, i) => [e, results[i]!]));
      // Each item's nearest samples of this chunk, exactly (the `item` of these is the sample's place in `searched`).
      nearestSamples(index.vectors, queries, dims, options.k, options.workers).forEach((list, item) => {
        for (const n of list) nearest.offer(item, n.similarity, searched[n.item]!.sample);
      });
      for (const entry of entries) {
        const { row, sample } = entry;
        if (!found.has(entry)) totals.empty++;
        for (const n of found.get(entry) ?? []) {
          if (n.similarity >= options.threshold) above.set(pairOf(n.item, sample.key), { item: n.item, similarity: n.similarity, sample });
        }
        totals.samples++;
        const decisions = confirmed.get(sample.key);
        if (decisions) {
          totals.dropped++;
          await removed?.record({ line: sample.line, ...(sample.id !== null ? { id: sample.id } : {}), sample: sample.key, decisions, row: row.value });
        } else await kept?.row(row);
      }
      progress?.update(totals.samples, { samples: totals.samples, cached: totals.cached, embedded: totals.embedded, candidates: above.size });
    };

    let chunk: Entry[] = [];
    for await (const raw of input.source.rows) {
      const row = rowOrThrow(raw, options.input);
      const text = rowText(row.value, options.textFields);
      chunk.push({ row, sample: { line: row.line, id: sampleId(row.value, options.idField), text, key: textKey(text) } });
      if (chunk.length >= options.chunk) {
        await handle(chunk);
        chunk = [];
      }
    }
    if (chunk.length > 0) await handle(chunk);

    const found = new Map<string, Found>();
    for (const [key, p] of above) found.set(key, { ...p, reasons: ['threshold'] });
    for (let item = 0; item < items.length; item++) {
      for (const n of nearest.of(item)) {
        const key = pairOf(item, n.sample.key);
        const entry = found.get(key) ?? { item, similarity: n.similarity, sample: n.sample, reasons: [] };
        entry.reasons.push('item_top_k');
        found.set(key, entry);
      }
    }
    return { found, ...totals };
  } finally {
    progress?.stop();
  }
}

/** Each pair with both texts, the 8-gram screens' flags, the shared runs and its decision: most similar first. */
function reviewPairs(found: Map<string, Found>, items: readonly Item[], loaded: LoadedBenchmarks, options: DenseOptions, book: DecisionBook | null): CandidatePair[] {
  const pairs: CandidatePair[] = [];
  const screens = new Map<number, { sampled: PhraseIndex; exhaustive: PhraseIndex }>();
  for (const p of found.values()) {
    const item = items[p.item]!;
    const benchmark = loaded[item.pass]!.source.name;
    let screen = screens.get(p.item);
    if (!screen) {
      const spec = (exhaustive: boolean) => [{ name: benchmark, items: [item], sampling: { n: options.ngram.n, count: options.ngram.phrases, exhaustive } }];
      screen = { sampled: new PhraseIndex(spec(false), options.ngram.threshold), exhaustive: new PhraseIndex(spec(true), options.ngram.threshold) };
      screens.set(p.item, screen);
    }
    const spans = sharedSpans(p.sample.text, item.text, options.spanWords);
    pairs.push({
      benchmark,
      itemId: item.id,
      sample: p.sample.key,
      line: p.sample.line,
      id: p.sample.id,
      similarity: Math.round(p.similarity * 1e6) / 1e6,
      reasons: p.reasons,
      ngram: { sampled: screen.sampled.scan(p.sample.text) !== null, exhaustive: screen.exhaustive.scan(p.sample.text) !== null },
      itemText: item.text,
      sampleText: p.sample.text,
      spans: { sample: spans.a.map((s) => [s.start, s.end]), item: spans.b.map((s) => [s.start, s.end]) },
      decision: book?.of(benchmark, item.id, p.sample.key) ?? null,
    });
  }
  return pairs.sort((x, y) => y.similarity - x.similarity || x.line - y.line || (x.itemId < y.itemId ? -1 : x.itemId > y.itemId ? 1 : 0));
}

async function writeCandidates(spec: OutputSpec, pairs: readonly CandidatePair[]): Promise<void> {
  const candidates = maybeOutput(spec, null);
  let written = false;
  try {
    for (const p of pairs) await candidates?.record(p);
    written = true;
  } finally {
    await finishOutputs(written, candidates);
  }
}

function benchmarkReport(b: LoadedBenchmarks[number], pairs: readonly CandidatePair[]): DenseBenchmarkReport {
  const mine = pairs.filter((p) => p.benchmark === b.source.name);
  return {
    benchmark: b.source.name,
    items: b.items.length,
    emptyItems: b.items.filter((item) => item.text.trim() === '').length,
    aboveThreshold: mine.filter((p) => p.reasons.includes('threshold')).length,
    pairs: mine.length,
    ngramFlagged: mine.filter((p) => p.ngram.sampled || p.ngram.exhaustive).length,
    contaminated: mine.filter((p) => p.decision?.decision === 'contaminated').length,
    benign: mine.filter((p) => p.decision?.decision === 'benign').length,
    undecided: mine.filter((p) => p.decision === null).length,
  };
}

export function renderDense(report: DenseReport): string {
  const e = report.embedding;
  const lines = [
    `searched ${report.samples} samples against ${report.benchmarks.reduce((a, b) => a + b.items, 0)} benchmark items (${String(report.options['search'])}, k ${String(report.options['k'])}, threshold ${String(report.options['threshold'])})`,
    `  embeddings: ${e.model} at ${e.endpoint}, ${e.dimensions ?? '?'} dimensions; ${e.embedded} embedded, ${e.cached} from the cache (${e.cachePath})`,
  ];
  const width = Math.max(9, ...report.benchmarks.map((b) => b.benchmark.length));
  lines.push(`  ${'benchmark'.padEnd(width)} ${'items'.padStart(6)} ${'≥ thresh'.padStart(9)} ${'pairs'.padStart(6)} ${'8-gram'.padStart(7)} ${'contam.'.padStart(8)} ${'benign'.padStart(7)} ${'undecided'.padStart(10)}`);
  for (const b of report.benchmarks) {
    lines.push(`  ${b.benchmark.padEnd(width)} ${String(b.items).padStart(6)} ${String(b.aboveThreshold).padStart(9)} ${String(b.pairs).padStart(6)} ${String(b.ngramFlagged).padStart(7)} ${String(b.contaminated).padStart(8)} ${String(b.benign).padStart(7)} ${String(b.undecided).padStart(10)}`);
  }
  if (report.decisions) lines.push(`  decisions ${report.decisions.file}: ${report.decisions.pairs} pairs by ${report.decisions.reviewers.join(', ')}; dropped ${report.dropped} samples, kept ${report.kept}`);
  lines.push('  review: verdict report SUMMARY.json -o review.html (from --summary-json), then --decisions FILE to apply');
  return lines.join('\n');
}
