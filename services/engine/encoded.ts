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
  /**
   * These samples as one message in the request's wire format (a ScoreRequest of just them, or a
   * JSON array of their objects), for a pool thread to decode: a buffer of its own, which the pool
   * may move to the thread (leaving it empty here).
   */
  pack(indices: readonly number[]): PackedSamples;
}

/** The wire formats of the Score API: protobuf messages, or their proto3 JSON objects' text. */
export type WireFormat = 'protobuf' | 'json';

/** Samples packed for a pool thread (see EncodedBatch.pack), in the wire format they came in. */
export interface PackedSamples {
  wire: WireFormat;
  bytes: Uint8Array;
}

/**
 * A chunk's results encoded together, as a pool thread sends them back: each result's encoding (a
 * ScoreResult message, or its JSON object's UTF-8 text) back to back in one buffer, with where each
 * ends: one allocation and one copy per chunk, not per result.
 */
export interface EncodedChunk {
  wire: WireFormat;
  bytes: Uint8Array;
  ends: number[];
}

/**
 * A result a pool thread encoded in the transport's wire format beside scoring it, so the main
 * thread, which every request and reply of a server passes through, only copies its bytes into the
 * reply. The result knows its chunk and place in private fields: a result replaced afterwards (a
 * reply that does not fit, group shaping) is a new plain object, since spreading copies no private
 * field, and is encoded from its own fields, never from stale bytes. One object per result: no
 * view into the chunk is kept and no side table, which a 65,536-result batch would carry into the
 * old generation of the heap.
 */
class EncodedScoreResult {
  readonly #chunk: EncodedChunk;
  readonly #k: number;

  constructor(chunk: EncodedChunk, k: number) {
    this.#chunk = chunk;
    this.#k = k;
  }

  static part(result: object): { chunk: EncodedChunk; k: number } | undefined {
    return #chunk in result ? { chunk: (result as EncodedScoreResult).#chunk, k: (result as EncodedScoreResult).#k } : undefined;
  }
}

/** An empty result that carries result `k` of `chunk` as its encoding (`toResult` fills in its fields). */
export function encodedResultShell(chunk: EncodedChunk, k: number): object {
  return new EncodedScoreResult(chunk, k);
}

/** The result's encoding in `wire` as a pool thread made it (a view of its chunk), if it did. */
export function encodedBytes(result: ScoreResult, wire: WireFormat): Uint8Array | undefined {
  const part = EncodedScoreResult.part(result);
  if (!part || part.chunk.wire !== wire) return undefined;
  const { bytes, ends } = part.chunk;
  return bytes.subarray(part.k === 0 ? 0 : ends[part.k - 1], ends[part.k]);
}

/** The bytes of the result's encoding, if a pool thread encoded it. */
export function encodedBytesBound(result: ScoreResult): number | undefined {
  const part = EncodedScoreResult.part(result);
  if (!part) return undefined;
  const { ends } = part.chunk;
  return ends[part.k]! - (part.k === 0 ? 0 : ends[part.k - 1]!);
}
