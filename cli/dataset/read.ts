import { createReadStream, statSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { Transform, type Readable } from 'node:stream';
import { parquetMetadataAsync, parquetReadObjects, toJson, type AsyncBuffer, type FileMetaData, type SchemaElement } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { isJsonObject, type JsonObject } from '../../core/json';
import { decoder } from './compression';
import type { DatasetFormat } from './format';

/**
 * One input row, numbered from 1 (a JSONL file's physical line, a Parquet file's row), or why it is
 * not a row. `native` keeps a Parquet row's values as the library decoded them, so pass-through
 * columns can be written back to Parquet with their own types.
 */
export type InputRow =
  | { line: number; value: JsonObject; native?: Record<string, unknown> }
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

export interface OpenRowsOptions {
  /** Rows numbered up to this one are skipped without being parsed (--resume). */
  after?: number;
}

export async function openRows(path: string, format: DatasetFormat, options: OpenRowsOptions = {}): Promise<RowSource> {
  if (format === 'parquet') {
    if (path === '-') throw new Error('input: Parquet cannot be read from stdin (it is read from its footer); give a file');
    return openParquet(path, options.after ?? 0);
  }
  return openJsonl(path, format, options.after ?? 0);
}

function openJsonl(path: string, format: DatasetFormat, after: number): RowSource {
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
  async function* rows(): AsyncGenerator<InputRow> {
    let line = 0;
    for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
      line++;
      if (line <= after || text.trim() === '') continue;
      yield parseJsonLine(text, line);
    }
  }
  return { rows: rows(), bytesRead: () => bytes, totalBytes: path === '-' ? null : statSync(path).size, parquetColumns: null };
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

export function parseJsonLine(text: string, line: number): InputRow {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { line, error: `not valid JSON (${(error as Error).message})` };
  }
  if (!isJsonObject(value)) return { line, error: `expected a JSON object, received ${describe(value)}` };
  return { line, value };
}

/** hyparquet reads through an AsyncBuffer: ranged reads of a file handle, so the file is never loaded whole. */
async function fileBuffer(path: string): Promise<{ buffer: AsyncBuffer; handle: FileHandle }> {
  const handle = await open(path, 'r');
  const { size } = await handle.stat();
  return {
    handle,
    buffer: {
      byteLength: size,
      async slice(start: number, end?: number): Promise<ArrayBuffer> {
        const length = (end ?? size) - start;
        const bytes = new Uint8Array(length);
        await handle.read(bytes, 0, length, start);
        return bytes.buffer;
      },
    },
  };
}

/** Top-level columns → their schema elements (the column and, for a group, all its descendants). */
function topLevelColumns(schema: readonly SchemaElement[]): Map<string, SchemaElement[]> {
  const columns = new Map<string, SchemaElement[]>();
  let i = 1;
  const subtreeEnd = (start: number): number => {
    let next = start + 1;
    for (let k = 0; k < (schema[start]!.num_children ?? 0); k++) next = subtreeEnd(next);
    return next;
  };
  while (i < schema.length) {
    const end = subtreeEnd(i);
    columns.set(schema[i]!.name, schema.slice(i, end));
    i = end;
  }
  return columns;
}

/** Rows read together: bounds memory to one slice of a row group, whatever the file's row-group size. */
const PARQUET_SLICE_ROWS = 8192;

async function openParquet(path: string, after: number): Promise<RowSource> {
  const { buffer, handle } = await fileBuffer(path);
  let metadata: FileMetaData;
  try {
    metadata = await parquetMetadataAsync(buffer);
  } catch (error) {
    await handle.close();
    throw new Error(`${path}: not a readable Parquet file (${(error as Error).message})`);
  }
  const total = Number(metadata.num_rows);
  let bytes = 0;
  async function* rows(): AsyncGenerator<InputRow> {
    try {
      let groupStart = 0;
      for (const group of metadata.row_groups) {
        const groupRows = Number(group.num_rows);
        const groupBytes = Number(group.total_compressed_size ?? group.total_byte_size);
        for (let start = Math.max(groupStart, after); start < groupStart + groupRows; start += PARQUET_SLICE_ROWS) {
          const end = Math.min(start + PARQUET_SLICE_ROWS, groupStart + groupRows, total);
          const objects = (await parquetReadObjects({ file: buffer, metadata, rowStart: start, rowEnd: end, compressors })) as Array<Record<string, unknown>>;
          for (let k = 0; k < objects.length; k++) {
            const native = objects[k]!;
            yield { line: start + k + 1, value: toJson(native) as JsonObject, native };
          }
          bytes += Math.round((groupBytes * (end - start)) / Math.max(1, groupRows));
        }
        groupStart += groupRows;
      }
    } finally {
      await handle.close();
    }
  }
  return { rows: rows(), bytesRead: () => bytes, totalBytes: buffer.byteLength, parquetColumns: topLevelColumns(metadata.schema) };
}
