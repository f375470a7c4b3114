import type { Sample, ScoreResult } from '../../core/sample';

/**
 * A batch the transport read only as far as the engine routes samples (id, verifier, group id,
 * response tokens; labels and metadata checked, not built): the rest stays in its wire bytes. Pool
 * threads decode the samples of their own chunk, so the thread every request passes through neither
 * builds them nor copies them to a pool thread as objects; it decodes in full only the samples whose
 * verifier runs on it.
 */
export interface EncodedBatch {
  /** The whole sample at `index`. */
  sample(index: number): Sample;
  /** UTF-8 bytes of the sample's response: its characters are at most that many. */
  responseBytes(index: number): number;
  /** These samples as one message (a ScoreRequest of just them), for a pool thread to decode. */
  pack(indices: readonly number[]): Uint8Array;
}

/**
 * Results a pool thread encoded in the transport's wire format beside scoring them, so the main
 * thread, which every request and reply of a server passes through, only copies their bytes into
 * the reply. The encoding is keyed by the result object: a result replaced afterwards (a reply that
 * does not fit, group shaping) is a new object and is encoded from its fields, never from stale bytes.
 */

/** The wire formats a pool thread encodes results in: a ScoreResult message, or its proto3 JSON object's text. */
export type ResultFormat = 'protobuf' | 'json';

/** One result's wire form: protobuf bytes, or JSON text. */
export type EncodedResult = Uint8Array | string;

/**
 * A chunk's results encoded together, as a pool thread sends them back: ScoreResult messages back to
 * back in one buffer with where each ends (one allocation and one copy per chunk, not per result),
 * or JSON texts.
 */
export type EncodedChunk = { bytes: Uint8Array; ends: number[] } | { texts: string[] };

/** Result `k` of a chunk (a view into its buffer). */
export function resultOfChunk(chunk: EncodedChunk, k: number): EncodedResult {
  if ('texts' in chunk) return chunk.texts[k]!;
  return chunk.bytes.subarray(k === 0 ? 0 : chunk.ends[k - 1], chunk.ends[k]);
}

const encodings = new WeakMap<ScoreResult, EncodedResult>();

export function setEncoded(result: ScoreResult, encoded: EncodedResult): void {
  encodings.set(result, encoded);
}

/** The result's ScoreResult message as a pool thread encoded it, if it did. */
export function encodedBytes(result: ScoreResult): Uint8Array | undefined {
  const encoded = encodings.get(result);
  return encoded instanceof Uint8Array ? encoded : undefined;
}

/** The result's JSON object text as a pool thread encoded it, if it did. */
export function encodedText(result: ScoreResult): string | undefined {
  const encoded = encodings.get(result);
  return typeof encoded === 'string' ? encoded : undefined;
}

/** An upper bound on the bytes of the result's encoding (UTF-8 takes up to 3 per character of text), if a pool thread encoded it. */
export function encodedBytesBound(result: ScoreResult): number | undefined {
  const encoded = encodings.get(result);
  if (encoded === undefined) return undefined;
  return typeof encoded === 'string' ? 3 * encoded.length : encoded.length;
}
