import type { ScoreResult } from '../../core/sample';

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
