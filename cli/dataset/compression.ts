import { Transform, type TransformCallback } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { Decompress } from 'fzstd';
import type { DatasetFormat } from './format';

// Node 20's zlib has no zstd: fzstd (pure JS, the decoder hyparquet-compressors uses too) reads it and
// the reference zstd library compiled to WebAssembly (@bokuweb/zstd-wasm) writes it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const zstdWasm = require('@bokuweb/zstd-wasm') as { init(): Promise<void>; compress(data: Uint8Array, level: number): Uint8Array };

/** A stream decoder for a compressed JSONL format; null for plain JSONL. */
export function decoder(format: DatasetFormat): Transform | null {
  if (format === 'jsonl.gz') return createGunzip();
  if (format === 'jsonl.zst') return zstdDecoder();
  return null;
}

function zstdDecoder(): Transform {
  let stream: Transform;
  const inflate = new Decompress((chunk) => stream.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
  stream = new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      try {
        inflate.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        callback();
      } catch (error) {
        callback(new Error(`zstd: ${(error as Error).message}`));
      }
    },
    flush(callback: TransformCallback) {
      try {
        inflate.push(new Uint8Array(0), true);
        callback();
      } catch (error) {
        callback(new Error(`zstd: truncated or corrupt input (${(error as Error).message})`));
      }
    },
  });
  return stream;
}

let zstdReady: Promise<void> | null = null;

/**
 * Encodes one block of output as a self-contained member (a gzip member, a zstd frame). Both formats
 * define a file of concatenated members as the concatenation of their contents, so each batch is
 * appended on its own and a file cut at a batch boundary (see --resume) stays valid.
 */
export async function encodeBlock(format: DatasetFormat, bytes: Buffer): Promise<Buffer> {
  if (format === 'jsonl.gz') return gzipSync(bytes);
  if (format === 'jsonl.zst') {
    zstdReady ??= zstdWasm.init();
    await zstdReady;
    return Buffer.from(zstdWasm.compress(bytes, 3));
  }
  return bytes;
}
