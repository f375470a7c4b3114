import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { once } from 'node:events';
import type { SchemaElement } from 'hyparquet';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { JsonObject } from '../../core/json';
import { encodeBlock } from './compression';
import type { DatasetFormat } from './format';

/** One output row: its JSON form, and for rows from a Parquet input the pass-through values as read. */
export interface OutputRow {
  json: JsonObject;
  native?: Record<string, unknown>;
}

/** Where results go, one batch at a time. */
export interface ResultSink {
  /** Appends one batch; when `durable`, it is on disk (fsync) when this resolves. */
  write(rows: readonly OutputRow[]): Promise<void>;
  /** Bytes in the output file so far (a resume checkpoint records it). */
  bytes(): number;
  close(): Promise<void>;
}

export interface SinkOptions {
  /** fsync after each batch, so a checkpoint never points past what reached the disk. */
  durable: boolean;
  /** Resume: keep the file's first `keepBytes` bytes and append after them (JSONL formats only). */
  keepBytes?: number;
  /** A Parquet input's columns, so pass-through columns keep their Parquet types. */
  parquetColumns?: Map<string, SchemaElement[]> | null;
}

export function openSink(path: string, format: DatasetFormat, options: SinkOptions): ResultSink {
  if (format === 'parquet') {
    if (path === '-') throw new Error('output: Parquet cannot be written to stdout; give a file (-o results.parquet)');
    return new ParquetSink(path, options.parquetColumns ?? null);
  }
  if (path === '-') return new StdoutSink(format);
  return new JsonlFileSink(path, format, options);
}

function jsonlText(rows: readonly OutputRow[]): string {
  let text = '';
  for (const row of rows) text += JSON.stringify(row.json) + '\n';
  return text;
}

class StdoutSink implements ResultSink {
  private written = 0;
  constructor(private readonly format: DatasetFormat) {}
  async write(rows: readonly OutputRow[]): Promise<void> {
    if (rows.length === 0) return;
    const block = await encodeBlock(this.format, jsonlText(rows));
    this.written += block.length;
    if (!process.stdout.write(block)) await once(process.stdout, 'drain');
  }
  bytes(): number {
    return this.written;
  }
  async close(): Promise<void> {}
}

class JsonlFileSink implements ResultSink {
  private readonly fd: number;
  private written: number;
  constructor(
    path: string,
    private readonly format: DatasetFormat,
    private readonly options: SinkOptions,
  ) {
    if (options.keepBytes !== undefined) {
      // A run killed between its first checkpoint and creating the output left no file: nothing to keep.
      this.fd = openSync(path, existsSync(path) ? 'r+' : 'w');
      if (fstatSync(this.fd).size < options.keepBytes) throw new Error(`${path}: shorter than its checkpoint says (${options.keepBytes} bytes); it was changed since, rerun without --resume`);
      ftruncateSync(this.fd, options.keepBytes);
      this.written = options.keepBytes;
    } else {
      this.fd = openSync(path, 'w');
      this.written = 0;
    }
  }
  async write(rows: readonly OutputRow[]): Promise<void> {
    if (rows.length === 0) return;
    const block = await encodeBlock(this.format, jsonlText(rows));
    let offset = 0;
    while (offset < block.length) offset += writeSync(this.fd, block, offset, block.length - offset, this.written + offset);
    this.written += block.length;
    if (this.options.durable) fsyncSync(this.fd);
  }
  bytes(): number {
    return this.written;
  }
  async close(): Promise<void> {
    closeSync(this.fd);
  }
}

/** ByteWriter that hands each finished row group to the file, so memory holds one batch. */
class FileByteWriter extends ByteWriter {
  constructor(private readonly fd: number) {
    super(1 << 20);
  }
  flush(): void {
    let done = 0;
    while (done < this.index) done += writeSync(this.fd, new Uint8Array(this.buffer, done, this.index - done));
    this.index = 0;
  }
  override finish(): void {
    this.flush();
  }
}

const string = (name: string, optional = false): SchemaElement => ({
  name,
  type: 'BYTE_ARRAY',
  converted_type: 'UTF8',
  repetition_type: optional ? 'OPTIONAL' : 'REQUIRED',
});
const json = (name: string): SchemaElement => ({ name, type: 'BYTE_ARRAY', converted_type: 'JSON', repetition_type: 'OPTIONAL' });
const double = (name: string): SchemaElement => ({ name, type: 'DOUBLE', repetition_type: 'OPTIONAL' });
const int64 = (name: string, optional = false): SchemaElement => ({ name, type: 'INT64', repetition_type: optional ? 'OPTIONAL' : 'REQUIRED' });

/** The result fields as Parquet columns; anything not listed (details, receipt) is a JSON column. */
const RESULT_COLUMNS: Record<string, SchemaElement> = {
  id: string('id'),
  line: int64('line'),
  rollout: int64('rollout', true),
  status: string('status'),
  reward: double('reward'),
  reason: string('reason'),
  verifier: string('verifier'),
  verifierVersion: string('verifierVersion'),
  details: json('details'),
  advantage: double('advantage'),
  receipt: json('receipt'),
};

/**
 * Results as Parquet: result fields as typed columns; pass-through columns keep the input's Parquet
 * schema when the input was Parquet, and are JSON columns otherwise. The column set is fixed by the
 * first batch (a Parquet file has one schema); a later column that was not there is reported once.
 */
class ParquetSink implements ResultSink {
  private readonly fd: number;
  private readonly out: FileByteWriter;
  private writer: ParquetWriter | null = null;
  private columns: string[] = [];
  private nativeColumns = new Set<string>();
  private readonly dropped = new Set<string>();

  constructor(
    path: string,
    private readonly input: Map<string, SchemaElement[]> | null,
  ) {
    this.fd = openSync(path, 'w');
    this.out = new FileByteWriter(this.fd);
  }

  private start(rows: readonly OutputRow[]): ParquetWriter {
    const names: string[] = [];
    const seen = new Set<string>();
    for (const row of rows) for (const key of Object.keys(row.json)) if (!seen.has(key)) (seen.add(key), names.push(key));
    const order = Object.keys(RESULT_COLUMNS);
    names.sort((a, b) => (order.includes(a) ? order.indexOf(a) : order.length) - (order.includes(b) ? order.indexOf(b) : order.length));
    const schema: SchemaElement[] = [{ name: 'root', num_children: names.length }];
    for (const name of names) {
      const result = RESULT_COLUMNS[name];
      const native = this.input?.get(name);
      if (result) schema.push(result);
      else if (native && native[0]!.repetition_type !== 'REQUIRED') {
        this.nativeColumns.add(name);
        schema.push(...native);
      } else if (native) {
        // A REQUIRED input column may be missing from an expanded or invalid row: write it as nullable.
        this.nativeColumns.add(name);
        schema.push({ ...native[0]!, repetition_type: 'OPTIONAL' }, ...native.slice(1));
      } else schema.push(json(name));
    }
    this.columns = names;
    return new ParquetWriter({ writer: this.out, schema });
  }

  async write(rows: readonly OutputRow[]): Promise<void> {
    if (rows.length === 0) return;
    this.writer ??= this.start(rows);
    for (const row of rows) {
      for (const key of Object.keys(row.json)) {
        if (!this.columns.includes(key) && !this.dropped.has(key)) {
          this.dropped.add(key);
          process.stderr.write(`verdict: column "${key}" first appears after the first batch; a Parquet output has the first batch's columns, so it is not written\n`);
        }
      }
    }
    const columnData = this.columns.map((name) => {
      // The writer takes INT64 values as bigint.
      const int64 = RESULT_COLUMNS[name]?.type === 'INT64';
      return {
        name,
        data: rows.map((row) => {
          const value = this.nativeColumns.has(name) && row.native && name in row.native ? row.native[name] : row.json[name];
          if (value === undefined || value === null) return null;
          return int64 && typeof value === 'number' ? BigInt(value) : value;
        }),
      };
    });
    await this.writer.write({ columnData, rowGroupSize: rows.length });
  }

  bytes(): number {
    return this.out.offset;
  }

  async close(): Promise<void> {
    // An empty input still yields a readable file: the result columns and no rows.
    this.writer ??= this.start([{ json: { id: '', line: 0, status: '', reason: '', verifier: '', verifierVersion: '', details: {}, receipt: {} } }]);
    await this.writer.finish();
    closeSync(this.fd);
  }
}
