import type { ShapedResult } from '../../core/groups';
import type { JsonObject } from '../../core/json';
import type { ResultHead, ScoreResult } from '../../core/sample';

/** The wire formats of the Score API: protobuf messages, or their proto3 JSON objects' text. */
export type WireFormat = 'protobuf' | 'json';

/** Samples packed for a pool thread (see SampleBatch.chunk), in the wire format they came in. */
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
 * reply. The main thread builds its head (metrics, request logs, the reply size bound); its details
 * exist only in the encoding, except an ABORTED result's, which the service-failure log reads. One
 * object per result that names its chunk and place: no view into the chunk and no side table, which
 * a 65,536-result batch would carry into the old generation of the heap. A result replaced afterwards
 * (a reply that does not fit) is a `ScoreResult` of its own, encoded from its fields.
 */
export interface EncodedResult extends ResultHead {
  readonly chunk: EncodedChunk;
  /** Its place in `chunk`. */
  readonly k: number;
  /** An ABORTED result's details; null for every other status (they are in the encoding alone). */
  readonly abortedDetails: JsonObject | null;
}

/** What the engine gives back for a sample: a whole result, or one a pool thread encoded (`ScoreOptions.encode`). */
export type EngineResult = ScoreResult | EncodedResult;

/** What a transport writes into a reply: a result whole (maybe shaped), or encoded by a pool thread. */
export type ReplyResult = ShapedResult | EncodedResult;

export function isEncoded(result: ReplyResult): result is EncodedResult {
  return 'chunk' in result;
}

/** The details the main thread has of a result: all of a whole one's, an encoded one's only when ABORTED. */
export function knownDetails(result: EngineResult): JsonObject | null {
  return isEncoded(result) ? result.abortedDetails : result.details;
}

/** The result's encoding as a pool thread made it (a view of its chunk); `wire` is the transport's, which the engine encoded for. */
export function encodedBytes({ chunk, k }: EncodedResult, wire: WireFormat): Uint8Array {
  if (chunk.wire !== wire) throw new Error(`a result encoded as ${chunk.wire} in a ${wire} reply`);
  return chunk.bytes.subarray(k === 0 ? 0 : chunk.ends[k - 1], chunk.ends[k]);
}

/** The bytes of the result's encoding. */
export function encodedLength({ chunk, k }: EncodedResult): number {
  return chunk.ends[k]! - (k === 0 ? 0 : chunk.ends[k - 1]!);
}
