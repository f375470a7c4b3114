import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Transform, type Readable } from 'node:stream';
import { isJsonObject } from '../../core/json';
import { decoder } from './compression';
import type { DatasetFormat } from './format';
import { loadParquet } from './load-parquet';
import type { InputRow, RowSource } from './rows';

export type { InputRow, RowSource } from './rows';

export interface OpenRowsOptions {
  /** Rows numbered up to this one are skipped without being parsed (--resume). */
  after?: number;
}

export async function openRows(path: string, format: DatasetFormat, options: OpenRowsOptions = {}): Promise<RowSource> {
  if (format === 'parquet') {
    if (path === '-') throw new Error('input: Parquet cannot be read from stdin (it is read from its footer); give a file');
    return loadParquet().openParquet(path, options.after ?? 0);
  }
  return openJsonl(path, format, options.after ?? 0);
}

/** A JSONL file's non-blank lines, unparsed: for readers that parse on other threads (verdict curate decontam). */
export interface LineSource {
  lines: AsyncIterable<{ line: number; text: string }>;
  bytesRead(): number;
  totalBytes: number | null;
}

export function openLines(path: string, format: Exclude<DatasetFormat, 'parquet'>, after = 0): LineSource {
  const raw: Readable = path === '-' ? process.stdin : createReadStream(path);
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      callback(null, chunk);
    },
  });
  raw.on('error', (error) => counter.destroy(error));
  let stream: Readable = raw.pipe(counter);
  const decode = decoder(format);
  if (decode) {
    stream.on('error', (error) => decode.destroy(error));
    stream = stream.pipe(decode);
  }
  async function* lines(): AsyncGenerator<{ line: number; text: string }> {
    let line = 0;
    for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
      line++;
      if (line <= after || text.trim() === '') continue;
      yield { line, text };
    }
  }
  return { lines: lines(), bytesRead: () => bytes, totalBytes: path === '-' ? null : statSync(path).size };
}

function openJsonl(path: string, format: Exclude<DatasetFormat, 'parquet'>, after: number): RowSource {
  const source = openLines(path, format, after);
  async function* rows(): AsyncGenerator<InputRow> {
    for await (const { line, text } of source.lines) yield parseJsonLine(text, line);
  }
  return { rows: rows(), bytesRead: source.bytesRead, totalBytes: source.totalBytes, parquetColumns: null };
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** Said after the error of a line that opens a JSON array: the file is one JSON document, not JSON Lines. */
const ARRAY_HINT = ' (JSONL expected, one object a line; this looks like a JSON array: convert it with jq -c \'.[]\' FILE > FILE.jsonl)';

export function parseJsonLine(text: string, line: number): InputRow {
  let value: unknown;
  const hint = text.trimStart().startsWith('[') ? ARRAY_HINT : '';
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { line, error: `not valid JSON (${(error as Error).message})${hint}` };
  }
  if (!isJsonObject(value)) return { line, error: `expected a JSON object, received ${describe(value)}${hint}` };
  return { line, value, text };
}

