import type { ShapedResult } from '../../core/groups';
import type { JsonObject } from '../../core/json';
import type { ResultHead, RoutedSample, ScoreResult, Status } from '../../core/sample';
import { STATUSES } from '../../core/status';
import { boundDetails } from './details';

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

/** A chunk's outcomes by position, as a pool thread sends them beside the encoding (services/pool/tasks.ts). */
export interface OutcomeColumns {
  status: Uint8Array;
  /** The reward where the status is OK. */
  reward: Float64Array;
  seconds: Float64Array;
  reason: string[];
  /** The details of ABORTED outcomes, by position. */
  abortedDetails: Array<[number, JsonObject]>;
}

/**
 * The heads of one chunk's encoded results, as the main thread keeps them: the columns the pool
 * thread sent beside the encoding (statuses, rewards, reasons), the chunk's positions in its batch,
 * and the batch's routed samples for ids and verifiers. Kept by chunk, not as one object of fields
 * per result: a 65,536-result reply held 112 bytes of old space a result that way until it was
 * sent, where a result is now an object of two fields over its chunk's columns.
 */
export interface ChunkHeads {
  readonly chunk: EncodedChunk;
  /** Each result's position in its batch (its index), by place in the chunk. */
  readonly indices: readonly number[];
  /** The batch's routed samples, by position. */
  readonly routes: readonly RoutedSample[];
  /** Index into STATUSES, by place in the chunk. */
  readonly status: Uint8Array;
  /** The reward where the status is OK. */
  readonly reward: Float64Array;
  /** By place in the chunk; equal reasons are one string. */
  readonly reason: readonly string[];
  /** The details of ABORTED results (bounded as a whole result's), by place in the chunk. */
  readonly abortedDetails: ReadonlyMap<number, JsonObject>;
  versionOf(verifier: string): string;
}

/** A chunk's heads from a pool thread's reply: its columns and encoding, the chunk's positions in `routes`. */
export function chunkHeads(
  columns: OutcomeColumns,
  chunk: EncodedChunk,
  indices: readonly number[],
  routes: readonly RoutedSample[],
  versionOf: (verifier: string) => string,
): ChunkHeads {
  const { status, reward } = columns;
  const abortedDetails = new Map(columns.abortedDetails.map(([k, details]) => [k, boundDetails(details)]));
  return { chunk, indices, routes, status, reward, reason: oneStringEach(columns.reason), abortedDetails, versionOf };
}

/**
 * `reasons` with equal ones made one string: a pool thread's reasons arrive as a string each (a
 * message copies strings by value), and a chunk's 512 results mostly share a few.
 */
function oneStringEach(reasons: string[]): string[] {
  const seen = new Map<string, string>();
  for (let k = 0; k < reasons.length; k++) {
    const reason = reasons[k]!;
    const first = seen.get(reason);
    if (first === undefined) seen.set(reason, reason);
    else reasons[k] = first;
  }
  return reasons;
}

/**
 * A result a pool thread encoded in the transport's wire format beside scoring it, so the main
 * thread, which every request and reply of a server passes through, only copies its bytes into the
 * reply. Its head (metrics, request logs, the reply size bound) is read from its chunk's columns;
 * its details exist only in the encoding, except an ABORTED result's, which the service-failure log
 * reads. A result replaced afterwards (a reply that does not fit) is a `ScoreResult` of its own,
 * encoded from its fields.
 */
export class EncodedResult implements ResultHead {
  constructor(
    readonly heads: ChunkHeads,
    /** Its place in its chunk. */
    readonly k: number,
  ) {}

  get chunk(): EncodedChunk {
    return this.heads.chunk;
  }

  get index(): number {
    return this.heads.indices[this.k]!;
  }

  get id(): string {
    return this.heads.routes[this.index]!.id;
  }

  get verifier(): string {
    return this.heads.routes[this.index]!.verifier;
  }

  get verifierVersion(): string {
    return this.heads.versionOf(this.verifier);
  }

  get status(): Status {
    return STATUSES[this.heads.status[this.k]!]!;
  }

  /** Present on OK alone: a failure is never a 0. */
  get reward(): number | undefined {
    return this.status === 'OK' ? this.heads.reward[this.k] : undefined;
  }

  get reason(): string {
    return this.heads.reason[this.k]!;
  }

  /** An ABORTED result's details; null for every other status (they are in the encoding alone). */
  get abortedDetails(): JsonObject | null {
    return this.status === 'ABORTED' ? (this.heads.abortedDetails.get(this.k) ?? {}) : null;
  }
}

/** What the engine gives back for a sample: a whole result, or one a pool thread encoded (`ScoreOptions.encode`). */
export type EngineResult = ScoreResult | EncodedResult;

/** What a transport writes into a reply: a result whole (maybe shaped), or encoded by a pool thread. */
export type ReplyResult = ShapedResult | EncodedResult;

export function isEncoded(result: ReplyResult): result is EncodedResult {
  return result instanceof EncodedResult;
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
