import { closeSync, existsSync, fstatSync, fsync, ftruncateSync, openSync, renameSync, rmSync, writev } from 'node:fs';
import { promisify } from 'node:util';
import { once } from 'node:events';
import type { SchemaElement } from 'hyparquet';
import { encodeBlock } from './compression';
import type { DatasetFormat } from './format';
import { loadParquet } from './load-parquet';
import { partialPath, type OutputRow, type ResultSink } from './rows';

export { partialPath, type OutputRow, type ResultSink } from './rows';

export interface SinkOptions {
  /** fsync after each batch, so a checkpoint never points past what reached the disk. */
  durable: boolean;
  /** Resume: keep the file's first `keepBytes` bytes and append after them (JSONL formats only). */
  keepBytes?: number;
  /** A Parquet input's columns, so pass-through columns keep their Parquet types. */
  parquetColumns?: Map<string, SchemaElement[]> | null;
  /** The rows are input rows, not results: a Parquet output takes every column from the input's schema. */
  inputRows?: boolean;
}

export function openSink(path: string, format: DatasetFormat, options: SinkOptions): ResultSink {
  if (format === 'parquet') {
    if (path === '-') throw new Error('output: Parquet cannot be written to stdout; give a file (-o results.parquet)');
    return new (loadParquet().ParquetSink)(path, options.parquetColumns ?? null, options.inputRows === true);
  }
  if (path === '-') return new StdoutSink(format);
  return new JsonlFileSink(path, format, options);
}

const writevAsync = promisify(writev);
const fsyncAsync = promisify(fsync);

/**
 * Writes `parts` one after another at `position`, as one gathered write where the system takes them
 * all (a write may take fewer bytes, or fewer buffers than given: the rest is written after them).
 */
async function writeAllAt(fd: number, parts: readonly Uint8Array[], position: number): Promise<number> {
  let rest = parts.filter((part) => part.byteLength > 0);
  let at = position;
  while (rest.length > 0) {
    let { bytesWritten } = await writevAsync(fd, rest as Uint8Array[], at);
    at += bytesWritten;
    let done = 0;
    while (done < rest.length && bytesWritten >= rest[done]!.byteLength) bytesWritten -= rest[done++]!.byteLength;
    rest = rest.slice(done);
    if (bytesWritten > 0) rest[0] = rest[0]!.subarray(bytesWritten);
  }
  return at - position;
}

/**
 * The rows in the output's format, as the parts to write one after another: runs of rows written
 * here are encoded together (one gzip member or zstd frame), what pool threads already encoded is
 * written as it came; members and frames follow one another, which both formats read as one stream.
 * The parts are not joined into one buffer: that copied every byte of the output once more on the
 * calling thread (Buffer.concat, ~5% of its CPU on the dataset bench) and doubled the memory outside
 * V8's heap that its full collections are started by.
 */
async function encodeRows(format: DatasetFormat, rows: readonly OutputRow[]): Promise<Uint8Array[]> {
  const parts: Uint8Array[] = [];
  let text = '';
  const flush = async () => {
    if (text !== '') parts.push(await encodeBlock(format, Buffer.from(text, 'utf8')));
    text = '';
  };
  for (const row of rows) {
    if ('encoded' in row) {
      await flush();
      parts.push(row.encoded);
    } else text += (row.text ?? JSON.stringify(row.json)) + '\n';
  }
  await flush();
  return parts;
}

class StdoutSink implements ResultSink {
  private written = 0;
  constructor(private readonly format: DatasetFormat) {}
  async write(rows: readonly OutputRow[]): Promise<void> {
    if (rows.length === 0) return;
    for (const part of await encodeRows(this.format, rows)) {
      this.written += part.byteLength;
      if (!process.stdout.write(part)) await once(process.stdout, 'drain');
    }
  }
  bytes(): number {
    return this.written;
  }
  async close(): Promise<void> {}
  async abandon(): Promise<void> {}
}

class JsonlFileSink implements ResultSink {
  private readonly fd: number;
  private written: number;
  private readonly partial: string;
  private open = true;
  constructor(
    private readonly path: string,
    private readonly format: DatasetFormat,
    private readonly options: SinkOptions,
  ) {
    this.partial = partialPath(path);
    if (options.keepBytes !== undefined) {
      // A run killed between its first checkpoint and creating the output left no file: nothing to keep.
      this.fd = openSync(this.partial, existsSync(this.partial) ? 'r+' : 'w');
      if (fstatSync(this.fd).size < options.keepBytes) {
        closeSync(this.fd);
        throw new Error(`${this.partial}: shorter than its checkpoint says (${options.keepBytes} bytes); it was changed since, rerun without --resume`);
      }
      ftruncateSync(this.fd, options.keepBytes);
      this.written = options.keepBytes;
    } else {
      this.fd = openSync(this.partial, 'w');
      this.written = 0;
    }
  }
  async write(rows: readonly OutputRow[]): Promise<void> {
    if (rows.length === 0) return;
    const parts = await encodeRows(this.format, rows);
    // Written and synced off the main thread, which meanwhile reads and maps the next rows.
    this.written += await writeAllAt(this.fd, parts, this.written);
    if (this.options.durable) await fsyncAsync(this.fd);
  }
  bytes(): number {
    return this.written;
  }
  async close(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    closeSync(this.fd);
    renameSync(this.partial, this.path);
  }
  async abandon(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    closeSync(this.fd);
    if (!this.options.durable) rmSync(this.partial, { force: true });
  }
}

