import type { JsonObject } from '../../core/json';
import { dedupKey } from '../../curate/dedup';
import { at, promptText, rowText } from '../../curate/text';
import { checkOutputs, finishOutputs, keptOutput, maybeOutput, openInput, progressFor, rowOrThrow } from './io';

export interface DedupOptions {
  input: string;
  format?: string;
  /** The problem statement's fields (default: the row's prompt field, as decontam finds a benchmark item's). */
  textFields: string[] | null;
  idField: string;
  output?: string;
  outputFormat?: string;
  removed?: string;
  clusters?: string;
  progress: boolean;
}

export interface DedupReport extends JsonObject {
  kind: 'verdict.curate';
  version: 1;
  command: 'dedup';
  input: string;
  rows: number;
  kept: number;
  removed: number;
  clusters: number;
  /** What the key was read from, with the rows each: the --text-field paths, or per row its prompt field. */
  keyFields: Record<string, number>;
  largest: Array<{ key: string; firstLine: number; size: number }>;
}

interface Cluster {
  firstLine: number;
  firstId: string | null;
  /** Lines of the later copies (removed). */
  copies: number[];
  copyIds: Array<string | null>;
}

/**
 * Keeps the first row of every key and removes the later ones, in one pass; memory holds one entry
 * per distinct key (its hash and first line), and the later copies' lines for the cluster report.
 */
export async function dedup(options: DedupOptions): Promise<DedupReport> {
  const outputs = { kept: keptOutput(options.output, options.outputFormat), removed: { path: options.removed, option: '--removed' }, clusters: { path: options.clusters, option: '--clusters' } };
  checkOutputs(...Object.values(outputs));
  const input = await openInput(options.input, options.format, 'input');
  const kept = maybeOutput(outputs.kept, input);
  const removed = maybeOutput(outputs.removed, null);
  const seen = new Map<string, Cluster>();
  let rows = 0;
  let dropped = 0;
  const keyFields: Record<string, number> = {};
  const progress = progressFor(input.source, options.progress, 'dedup', ['kept', 'removed']);
  let ok = false;
  try {
    for await (const raw of input.source.rows) {
      const row = rowOrThrow(raw, options.input);
      rows++;
      let text: string;
      if (options.textFields !== null) text = rowText(row.value, options.textFields);
      else {
        const prompt = promptText(row.value, options.idField);
        text = prompt.text;
        keyFields[prompt.field] = (keyFields[prompt.field] ?? 0) + 1;
      }
      const key = dedupKey(text);
      const id = at(row.value, options.idField);
      const rowId = typeof id === 'string' || typeof id === 'number' ? String(id) : null;
      const cluster = seen.get(key);
      if (cluster === undefined) {
        seen.set(key, { firstLine: row.line, firstId: rowId, copies: [], copyIds: [] });
        await kept?.row(row);
      } else {
        dropped++;
        cluster.copies.push(row.line);
        cluster.copyIds.push(rowId);
        await removed?.record({ line: row.line, ...(rowId !== null ? { id: rowId } : {}), reason: 'duplicate', key, firstLine: cluster.firstLine, ...(cluster.firstId !== null ? { firstId: cluster.firstId } : {}), row: row.value });
      }
      if (rows % 4096 === 0) progress?.update(rows, { kept: rows - dropped, removed: dropped });
    }
    ok = true;
  } finally {
    progress?.stop();
    await finishOutputs(ok, kept, removed);
  }
  const clusters = [...seen.entries()].filter(([, c]) => c.copies.length > 0);
  const out = maybeOutput(outputs.clusters, null);
  if (out) {
    for (const [key, c] of clusters) {
      await out.record({ key, size: 1 + c.copies.length, kept: { line: c.firstLine, ...(c.firstId !== null ? { id: c.firstId } : {}) }, removed: c.copies.map((line, k) => ({ line, ...(c.copyIds[k] !== null ? { id: c.copyIds[k]! } : {}) })) });
    }
    await out.close();
  }
  const largest = clusters
    .map(([key, c]) => ({ key, firstLine: c.firstLine, size: 1 + c.copies.length }))
    .sort((a, b) => b.size - a.size || a.firstLine - b.firstLine)
    .slice(0, 10);
  if (options.textFields !== null) keyFields[options.textFields.join(' + ')] = rows;
  return { kind: 'verdict.curate', version: 1, command: 'dedup', input: options.input, rows, kept: rows - dropped, removed: dropped, clusters: clusters.length, keyFields, largest };
}

export function renderDedup(report: DedupReport): string {
  const lines = [`${report.rows} rows: kept ${report.kept}, removed ${report.removed} duplicates in ${report.clusters} clusters`];
  const fields = Object.entries(report.keyFields).map(([field, n]) => `${field} (${n} rows)`);
  if (fields.length > 0) lines.push(`  key: ${fields.join(', ')}`);
  for (const c of report.largest.slice(0, 5)) lines.push(`  ${String(c.size).padStart(6)} copies of line ${c.firstLine} (key ${c.key.slice(0, 12)}…)`);
  return lines.join('\n');
}
