// The row types the dataset readers and writers share, in a module of their own so that the
// Parquet module (loaded lazily by read.ts and write.ts) can use them without an import cycle.
import type { SchemaElement } from 'hyparquet';
import type { JsonObject } from '../../core/json';

/**
 * One input row, numbered from 1 (a JSONL file's physical line, a Parquet file's row), or why it is
 * not a row. `native` keeps a Parquet row's values as the library decoded them, so pass-through
 * columns can be written back to Parquet with their own types.
 */
export type InputRow =
  | { line: number; value: JsonObject; native?: Record<string, unknown>; text?: string }
  | { line: number; error: string };

export interface RowSource {
  rows: AsyncIterable<InputRow>;
  /** Bytes of the file (compressed bytes for .gz/.zst) consumed so far: progress that needs no line count. */
  bytesRead(): number;
  /** The file's size; null for stdin. */
  totalBytes: number | null;
  /** A Parquet input's top-level columns with their schema subtrees (for writing them back unchanged). */
  parquetColumns: Map<string, SchemaElement[]> | null;
}

/** One output row: its JSON form, and for rows from a Parquet input the pass-through values as read. */
export interface JsonRow {
  json: JsonObject;
  native?: Record<string, unknown>;
  /** A JSONL input line as read: written instead of `json` to a JSONL output. */
  text?: string;
}

/**
 * What a sink writes: rows, or result rows a pool thread already wrote in the output's format
 * (JSONL, or JSONL as one gzip member or zstd frame: `verdict score` on a JSONL file; only JSONL
 * sinks are given them).
 */
export type OutputRow = JsonRow | { encoded: Uint8Array };

/**
 * Where results go, one batch at a time. A file is written under a temporary name beside it
 * (`partialPath`) and given its own name only by `close`, so a run stopped by an error never leaves
 * a partial file under the name a finished one has.
 */
export interface ResultSink {
  /** Appends one batch; when `durable`, it is on disk (fsync) when this resolves. */
  write(rows: readonly OutputRow[]): Promise<void>;
  /** Bytes in the output file so far (a resume checkpoint records it). */
  bytes(): number;
  /** The output is complete: finish it and move it to its name. */
  close(): Promise<void>;
  /** The run stopped short: close the partial file, kept for --resume when `durable`, else removed. No-op after `close`. */
  abandon(): Promise<void>;
}

/** The temporary name an output file has until it is complete (and --resume continues). */
export function partialPath(path: string): string {
  return `${path}.partial`;
}
