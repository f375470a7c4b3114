import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { JsonObject } from '../../core/json';
import type { CodeForm } from '../../curate/code-index';
import type { PhraseSampling } from '../../curate/phrases';
import type { ScreenMatch, ScreenSpec } from '../../curate/screen';
import { formatOf } from '../dataset/format';
import { openLines, parseJsonLine } from '../dataset/read';
import type { ScanOutcome, ScanTask } from './scan-task';
import { at, itemText, rowText } from '../../curate/text';
import { checkOutputs, finishOutputs, keptOutput, maybeOutput, openInput, progressFor, rowOrThrow } from './io';
import { startScanner } from './scanner';
import type { InputRow } from '../dataset/read';

export interface BenchmarkSource {
  name: string;
  path: string;
}

/** What both benchmark screens (decontam and dense) read and write: the data, the benchmarks and the row fields. */
export interface ScreenInput {
  input: string;
  format?: string;
  benchmarks: BenchmarkSource[];
  /** Row fields screened (default: every string of the row). */
  textFields: string[] | null;
  /** Benchmark item fields that make an item's text (default: every string of the row). */
  benchmarkFields: string[] | null;
  benchmarkIdField: string;
  idField: string;
  output?: string;
  removed?: string;
  outputFormat?: string;
  progress: boolean;
}

export interface DecontamOptions extends ScreenInput {
  form: 'words' | 'code';
  sampling: Omit<PhraseSampling, 'exhaustive'>;
  /** Benchmarks screened with every phrase; null = none, [] = all. */
  exhaustive: string[] | null;
  threshold: number;
  code: CodeForm;
  workers: number;
}

export interface PassReport {
  benchmark: string;
  files: string[];
  items: number;
  exhaustive: boolean;
  /** Phrases (word form) or distinct character n-grams (code form) indexed. */
  indexed: number;
  /** Word form: items shorter than n words, screened as one whole-item phrase; code form: shorter than n characters (prefix only). */
  shortItems: number;
  /** Items with no text: nothing to screen. */
  emptyItems: number;
  removed: number;
  /** The items that removed the most samples, for review (the recipe inspects abnormally high counts by hand). */
  topItems: Array<{ itemId: string; removed: number; phrases: Array<{ phrase: string; samples: number }> }>;
}

export interface DecontamReport extends JsonObject {
  kind: 'verdict.curate';
  version: 1;
  command: 'decontam';
  input: string;
  form: 'words' | 'code';
  options: JsonObject;
  samples: number;
  kept: number;
  removed: number;
  passes: PassReport[] & JsonObject[];
  seconds: number;
}

const DATA_FILE = /\.(jsonl|ndjson|json|parquet)(\.gz|\.zst)?$|\.(gz|zst)$/i;

/** `[NAME=]PATH`: a file or a folder of files; the name defaults to the file's or folder's base name. */
export function parseBenchmark(text: string): BenchmarkSource {
  const m = /^([A-Za-z0-9_.+-]+)=(.+)$/.exec(text);
  if (m) return { name: m[1]!, path: m[2]! };
  return { name: basename(text).replace(/\.(jsonl|ndjson|json|parquet)(\.gz|\.zst)?$/i, ''), path: text };
}

function benchmarkFiles(source: BenchmarkSource): string[] {
  let stat;
  try {
    stat = statSync(source.path);
  } catch {
    throw new Error(`--benchmark ${source.name}: ${source.path} does not exist`);
  }
  if (!stat.isDirectory()) return [source.path];
  const files = readdirSync(source.path)
    .filter((f) => DATA_FILE.test(f))
    .sort()
    .map((f) => join(source.path, f));
  if (files.length === 0) throw new Error(`--benchmark ${source.name}: ${source.path} holds no JSONL or Parquet file`);
  return files;
}

async function loadItems(source: BenchmarkSource, fields: string[] | null, idField: string): Promise<{ files: string[]; items: Array<{ id: string; text: string }> }> {
  const files = benchmarkFiles(source);
  const items: Array<{ id: string; text: string }> = [];
  for (const file of files) {
    const input = await openInput(file, undefined, `--benchmark ${source.name}`);
    for await (const raw of input.source.rows) {
      const row = rowOrThrow(raw, file);
      const id = at(row.value, idField);
      items.push({ id: typeof id === 'string' || typeof id === 'number' ? String(id) : `${basename(file)}:${row.line}`, text: fields === null ? itemText(row.value, idField) : rowText(row.value, fields) });
    }
  }
  return { files, items };
}

/** Every benchmark's items, in the order given; a name given twice is refused. */
export async function loadBenchmarks(sources: readonly BenchmarkSource[], fields: string[] | null, idField: string): Promise<Array<{ source: BenchmarkSource; files: string[]; items: Array<{ id: string; text: string }> }>> {
  const names = new Set<string>();
  for (const source of sources) {
    if (names.has(source.name)) throw new Error(`--benchmark ${source.name}: named twice (give NAME=PATH to tell them apart)`);
    names.add(source.name);
  }
  const loaded = [];
  for (const source of sources) loaded.push({ source, ...(await loadItems(source, fields, idField)) });
  return loaded;
}

export function sampleId(row: JsonObject, field: string): string | null {
  const id = at(row, field);
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}

/**
 * The chained screen: all benchmarks indexed once, the training data read once; a sample is removed
 * by the first benchmark in the given order that matches it, exactly as if the passes ran one
 * after the other on what the previous ones kept.
 */
export async function decontam(options: DecontamOptions): Promise<DecontamReport> {
  const started = Date.now();
  const outputs = { kept: keptOutput(options.output, options.outputFormat), removed: { path: options.removed, option: '--removed' } };
  checkOutputs(...Object.values(outputs));
  const loaded = await loadBenchmarks(options.benchmarks, options.benchmarkFields, options.benchmarkIdField);
  const names = new Set(loaded.map((b) => b.source.name));
  for (const name of options.exhaustive ?? []) if (!names.has(name)) throw new Error(`--exhaustive ${name}: no --benchmark has that name (known: ${[...names].join(', ')})`);
  const exhaustive = (name: string) => options.exhaustive !== null && (options.exhaustive.length === 0 || options.exhaustive.includes(name));
  const spec: ScreenSpec =
    options.form === 'words'
      ? { form: 'words', threshold: options.threshold, benchmarks: loaded.map((b) => ({ name: b.source.name, items: b.items, sampling: { ...options.sampling, exhaustive: exhaustive(b.source.name) } })) }
      : { form: 'code', code: options.code, benchmarks: loaded.map((b) => ({ name: b.source.name, items: b.items })) };
  const scanner = startScanner({ spec, textFields: options.textFields }, options.workers);
  const choice = formatOf(options.input, options.format, 'input');
  if (!choice.ok) throw new Error(choice.error);
  // JSONL is handed to the scan threads as raw lines, which they parse: this thread only reads and
  // writes. Parquet rows arrive decoded, so their texts are taken here.
  const lines = choice.format === 'parquet' ? null : openLines(options.input, choice.format);
  const input = lines ? null : await openInput(options.input, choice.format, 'input');
  const kept = maybeOutput(outputs.kept, input);
  const removed = maybeOutput(outputs.removed, null);
  const tally = new RemovalTally(loaded.length);
  let samples = 0;
  const progress = progressFor(lines ?? input!.source, options.progress, 'screening', ['kept', 'removed']);
  const rowOf = (entry: Entry) => entry.row ?? rowOrThrow(parseJsonLine(entry.text!, entry.line), options.input);
  const handle = async (entries: Entry[], outcomes: ScanOutcome[]) => {
    for (let k = 0; k < entries.length; k++) {
      const entry = entries[k]!;
      const outcome = outcomes[k]!;
      samples++;
      if (outcome !== null && 'error' in outcome) throw new Error(`${options.input}:${entry.line}: ${outcome.error}`);
      if (outcome === null) {
        if (kept && entry.row === undefined && kept.takesLines) await kept.line(entry.text!);
        else if (kept) await kept.row(rowOf(entry));
        continue;
      }
      tally.add(outcome);
      await removed?.record(removalRecord(rowOf(entry), outcome, options.idField));
    }
    progress?.update(samples, { kept: samples - tally.total(), removed: tally.total() });
  };
  let ok = false;
  try {
    const inFlight: Array<{ entries: Entry[]; outcomes: Promise<ScanOutcome[]> }> = [];
    const depth = 2 * Math.max(1, options.workers);
    let chunk: Entry[] = [];
    const submit = async () => {
      const task: ScanTask = lines ? { lines: chunk.map((e) => e.text!) } : { texts: chunk.map((e) => rowText(e.row!.value, options.textFields)) };
      inFlight.push({ entries: chunk, outcomes: scanner.scan(task) });
      chunk = [];
      while (inFlight.length >= depth) {
        const next = inFlight.shift()!;
        await handle(next.entries, await next.outcomes);
      }
    };
    const entries: AsyncIterable<Entry> = lines ? lines.lines : rowEntries(input!.source.rows, options.input);
    for await (const entry of entries) {
      chunk.push(entry);
      if (chunk.length === 256) await submit();
    }
    if (chunk.length > 0) await submit();
    for (const next of inFlight.splice(0)) await handle(next.entries, await next.outcomes);
    ok = true;
  } finally {
    progress?.stop();
    await scanner.close();
    await finishOutputs(ok, kept, removed);
  }
  const indexed = scanner.screen.indexed();
  const passes: PassReport[] = loaded.map((b, pass) => ({
    benchmark: b.source.name,
    files: b.files,
    items: b.items.length,
    exhaustive: options.form === 'words' && exhaustive(b.source.name),
    indexed: indexed[pass]!.entries,
    shortItems: indexed[pass]!.shortItems,
    emptyItems: indexed[pass]!.emptyItems,
    removed: tally.removed(pass),
    topItems: tally.topItems(pass),
  }));
  const total = tally.total();
  return {
    kind: 'verdict.curate',
    version: 1,
    command: 'decontam',
    input: options.input,
    form: options.form,
    options:
      options.form === 'words'
        ? { n: options.sampling.n, phrases: options.sampling.count, threshold: options.threshold, textFields: options.textFields }
        : { prefixChars: options.code.prefixChars, n: options.code.n, minShared: options.code.minShared, textFields: options.textFields },
    samples,
    kept: samples - total,
    removed: total,
    passes: passes as PassReport[] & JsonObject[],
    seconds: (Date.now() - started) / 1000,
  };
}

/** Removals per pass, and per item the samples it removed and the phrases that matched: the review list. */
class RemovalTally {
  private readonly byPass: Array<{ removed: number; items: Map<string, { removed: number; phrases: Map<string, number> }> }>;

  constructor(passes: number) {
    this.byPass = Array.from({ length: passes }, () => ({ removed: 0, items: new Map() }));
  }

  add(match: ScreenMatch): void {
    const pass = this.byPass[match.pass]!;
    pass.removed++;
    const item = pass.items.get(match.itemId) ?? { removed: 0, phrases: new Map<string, number>() };
    item.removed++;
    for (const phrase of match.matched) item.phrases.set(phrase, (item.phrases.get(phrase) ?? 0) + 1);
    pass.items.set(match.itemId, item);
  }

  removed(pass: number): number {
    return this.byPass[pass]!.removed;
  }

  total(): number {
    return this.byPass.reduce((a, p) => a + p.removed, 0);
  }

  /** The ten items that removed the most samples, each with its five commonest phrases (ties by name). */
  topItems(pass: number): PassReport['topItems'] {
    const byName = (x: [string, unknown], y: [string, unknown]) => (x[0] < y[0] ? -1 : 1);
    return [...this.byPass[pass]!.items.entries()]
      .sort((x, y) => y[1].removed - x[1].removed || byName(x, y))
      .slice(0, 10)
      .map(([itemId, e]) => ({
        itemId,
        removed: e.removed,
        phrases: [...e.phrases.entries()]
          .sort((x, y) => y[1] - x[1] || byName(x, y))
          .slice(0, 5)
          .map(([phrase, n]) => ({ phrase, samples: n })),
      }));
  }
}

/** A sample of the training data: a raw JSONL line, or a decoded (Parquet) row. */
interface Entry {
  line: number;
  text?: string;
  row?: Extract<InputRow, { value: JsonObject }>;
}

async function* rowEntries(rows: AsyncIterable<InputRow>, path: string): AsyncGenerator<Entry> {
  for await (const raw of rows) {
    const row = rowOrThrow(raw, path);
    yield { line: row.line, row };
  }
}

function removalRecord(row: Extract<InputRow, { value: JsonObject }>, match: ScreenMatch, idField: string): JsonObject {
  const id = sampleId(row.value, idField);
  const common = { line: row.line, ...(id !== null ? { id } : {}), benchmark: match.benchmark, itemId: match.itemId };
  const evidence: JsonObject =
    match.form === 'words' ? { rule: 'phrases', hits: match.hits, phrases: match.phrases, matched: match.matched } : { rule: match.rule, shared: match.shared, matched: match.matched };
  return { ...common, ...evidence, row: row.value };
}

export function renderDecontam(report: DecontamReport): string {
  const lines = [`screened ${report.samples} samples (${report.form} form): kept ${report.kept}, removed ${report.removed}`];
  const width = Math.max(9, ...report.passes.map((p) => p.benchmark.length));
  lines.push(`  ${'pass'.padEnd(4)} ${'benchmark'.padEnd(width)} ${'items'.padStart(7)} ${'indexed'.padStart(9)} ${'removed'.padStart(9)}`);
  report.passes.forEach((p, k) => {
    lines.push(`  ${String(k + 1).padEnd(4)} ${p.benchmark.padEnd(width)} ${String(p.items).padStart(7)} ${String(p.indexed).padStart(9)} ${String(p.removed).padStart(9)}${p.exhaustive ? '  (exhaustive)' : ''}`);
    const unscreened = [p.emptyItems > 0 ? `${p.emptyItems} empty items not screened` : '', p.shortItems > 0 ? `${p.shortItems} short items screened whole` : ''].filter((s) => s !== '');
    if (unscreened.length > 0) lines.push(`         ${unscreened.join('; ')}`);
    for (const item of p.topItems.slice(0, 3)) lines.push(`         ${item.removed} by ${item.itemId}: "${item.phrases[0]?.phrase ?? ''}"`);
  });
  return lines.join('\n');
}
