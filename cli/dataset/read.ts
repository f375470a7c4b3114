import { isUtf8 } from 'node:buffer';
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Transform, type Readable } from 'node:stream';
import { decoder } from './compression';
import type { DatasetFormat } from './format';
import { parseJsonLine } from './json-line';
import { cutLines, type LineBlock } from './lines';
import { loadParquet } from './load-parquet';
import type { InputRow, RowSource } from './rows';

export type { InputRow, RowSource } from './rows';
export { parseJsonLine } from './json-line';

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

/** A JSONL file's bytes as read (decompressed), with what its readers report from them. */
interface DecodedInput {
  stream: Readable;
  name: string;
  bytesRead(): number;
  totalBytes: number | null;
  /** The error a failed read becomes, naming the file and the last line read. */
  readError(error: unknown, line: number): Error;
  /** Warns of lines that held bytes that are not UTF-8 (once the whole input is read). */
  warnInvalid(): void;
}

function openDecoded(path: string, format: Exclude<DatasetFormat, 'parquet'>): DecodedInput {
  // 1 MiB reads: a block of lines is cut from fewer, larger chunks, copied once where 64 KiB chunks
  // had it joined again with each chunk that added to it.
  const raw: Readable = path === '-' ? process.stdin : createReadStream(path, { highWaterMark: 1 << 20 });
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
  const check = utf8Check();
  stream.on('error', (error) => check.stream.destroy(error));
  stream = stream.pipe(check.stream);
  const name = path === '-' ? 'stdin' : path;
  return {
    stream,
    name,
    bytesRead: () => bytes,
    totalBytes: path === '-' ? null : statSync(path).size,
    readError(error, line) {
      // zlib's "unexpected end of file" names neither the file nor where: a truncated download, say.
      const message = error instanceof Error ? error.message : String(error);
      return new Error(`${name}: cannot read past line ${line} (${message})${format === 'jsonl' ? '' : `: a truncated or corrupt ${format} file?`}`);
    },
    warnInvalid() {
      // Lines are text: bytes that are not UTF-8 were read as U+FFFD and cannot be written back as they were.
      const invalid = check.invalidLines();
      if (invalid > 0) {
        process.stderr.write(`verdict: warning: ${name}: ${invalid} line${invalid === 1 ? ' holds' : 's hold'} bytes that are not UTF-8; they were read, and are written, with U+FFFD in their place\n`);
      }
    },
  };
}

export function openLines(path: string, format: Exclude<DatasetFormat, 'parquet'>, after = 0): LineSource {
  const input = openDecoded(path, format);
  async function* lines(): AsyncGenerator<{ line: number; text: string }> {
    let line = 0;
    try {
      for await (const text of createInterface({ input: input.stream, crlfDelay: Infinity })) {
        line++;
        if (line <= after || text.trim() === '') continue;
        yield { line, text };
      }
    } catch (error) {
      throw input.readError(error, line);
    }
    input.warnInvalid();
  }
  return { lines: lines(), bytesRead: input.bytesRead, totalBytes: input.totalBytes };
}

/** A JSONL file in blocks of whole lines, as bytes: for readers whose threads split and parse them (verdict score). */
export interface BlockSource {
  blocks: AsyncIterable<LineBlock>;
  bytesRead(): number;
  totalBytes: number | null;
}

/** Blocks of at most `size` lines; the blocks wholly at or before line `after` are left out. */
export function openLineBlocks(path: string, format: Exclude<DatasetFormat, 'parquet'>, size: number, after = 0): BlockSource {
  const input = openDecoded(path, format);
  async function* blocks(): AsyncGenerator<LineBlock> {
    let line = 0;
    try {
      for await (const block of cutLines(input.stream, size)) {
        line = block.firstLine + block.lines - 1;
        if (line > after) yield block;
      }
    } catch (error) {
      throw input.readError(error, line);
    }
    input.warnInvalid();
  }
  return { blocks: blocks(), bytesRead: input.bytesRead, totalBytes: input.totalBytes };
}

/** Bytes at the end of `chunk` that begin a UTF-8 sequence the chunk does not finish (0 to 3). */
function unfinishedTail(chunk: Buffer): number {
  for (let i = chunk.length - 1; i >= Math.max(0, chunk.length - 3); i--) {
    const b = chunk[i]!;
    if ((b & 0xc0) === 0x80) continue;
    if (b < 0xc0) return 0;
    const needed = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    return chunk.length - i < needed ? chunk.length - i : 0;
  }
  return 0;
}

/**
 * Passes the decompressed bytes through, counting the lines that hold bytes that are not UTF-8
 * (Node's native check per chunk; only a failing chunk is looked at line by line).
 */
function utf8Check(): { stream: Transform; invalidLines(): number } {
  let carry = Buffer.alloc(0);
  let invalid = 0;
  const count = (bytes: Buffer) => {
    if (isUtf8(bytes)) return;
    let start = 0;
    while (start <= bytes.length) {
      const end = bytes.indexOf(0x0a, start);
      const stop = end === -1 ? bytes.length : end;
      if (!isUtf8(bytes.subarray(start, stop))) invalid++;
      if (end === -1) break;
      start = end + 1;
    }
  };
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      const whole = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      const tail = unfinishedTail(whole);
      count(whole.subarray(0, whole.length - tail));
      carry = Buffer.from(whole.subarray(whole.length - tail));
      callback(null, chunk);
    },
    flush(callback) {
      if (carry.length > 0) count(carry);
      callback();
    },
  });
  return { stream, invalidLines: () => invalid };
}

function openJsonl(path: string, format: Exclude<DatasetFormat, 'parquet'>, after: number): RowSource {
  const source = openLines(path, format, after);
  async function* rows(): AsyncGenerator<InputRow> {
    for await (const { line, text } of source.lines) yield parseJsonLine(text, line);
  }
  return { rows: rows(), bytesRead: source.bytesRead, totalBytes: source.totalBytes, parquetColumns: null };
}
