import type { Json } from '../../core/json';
import type { Registry } from '../../core/registry';
import { aborted, invalid, type Outcome, type Sample } from '../../core/sample';
import { scorePure } from '../../core/score';
import { STATUSES } from '../../core/status';
import type { EncodedChunk, OutcomeColumns, PackedSamples, WireFormat } from '../engine/encoded';
import { toResult } from '../engine/result';
import type * as Binary from '../wire/binary';
import type * as JsonScan from '../wire/json-scan';
import type * as Formats from '../wire/formats';

/**
 * The Score API's codecs, loaded by a thread when it first decodes a packed chunk or encodes one:
 * only serving sends those, and a `verdict score` or `check` thread starts without them (76 modules
 * of the 239 a thread loaded).
 */
const wire = {
  binary: () => require('../wire/binary') as typeof Binary,
  jsonScan: () => require('../wire/json-scan') as typeof JsonScan,
  formats: () => require('../wire/formats') as typeof Formats,
};

/** An outcome and the CPU time it took, measured where it was computed. */
export interface TimedOutcome {
  outcome: Outcome;
  seconds: number;
}

/**
 * What a thread sends back for a chunk: the outcomes as objects, or, when the chunk asked for its
 * results encoded, those results in the asked wire format with the outcomes in columns beside them.
 * The details then travel only in the encoding (except an ABORTED outcome's, which the service-
 * failure log reads): the calling thread neither receives nor encodes them again, and typed columns
 * cross between threads as a few moved buffers (worker.ts) where 512 outcome objects were cloned
 * one by one (~1 µs per result, measured).
 */
export type ChunkReply = { timed: TimedOutcome[] } | { columns: OutcomeColumns; encoded: EncodedChunk };


/** Where a chunk's results go: the wire format, and each sample's position in its batch (the result's index). */
export interface EncodeAs {
  format: WireFormat;
  /** A typed array: it crosses to the thread as one copy, where a JavaScript array is cloned item by item. */
  indices: Int32Array;
}

/** What the pool runs: a chunk of pure-verifier samples, one named task of a verifier, or a job of the entry module. */
export type PoolTask =
  | {
      op: 'score';
      /** The samples, or the samples packed in their wire format (see SampleBatch.chunk): decoded here, off the calling thread. */
      samples: Sample[] | PackedSamples;
      /** An Int32Array's buffer whose first cell the thread sets when it starts the chunk (its budget runs from then). */
      started?: SharedArrayBuffer;
      encode?: EncodeAs;
      /** Collect the thread's young generation before scoring: a large request's chunk (worker.ts). */
      collectYoung?: true;
    }
  | { op: 'task'; verifier: string; task: string; payload: Json }
  /** A job the pool's entry module adds (PoolJobs), under the same budget as a chunk. */
  | { op: 'job'; name: string; payload: unknown; started?: SharedArrayBuffer };

function outcomeOf(registry: Registry, sample: Sample): Outcome {
  const verifier = registry.get(sample.verifier);
  if (verifier?.kind === 'pure') return scorePure(verifier, sample);
  return verifier ? aborted('not_a_pure_verifier') : invalid(registry.unknownVerifierReason(sample.verifier));
}

/** A packed chunk's samples. It was checked when its request was read (ScannedBatch): it decodes without error. */
function unpack({ wire: format, bytes }: PackedSamples): Sample[] {
  return format === 'protobuf' ? wire.binary().decodeScoreRequest(bytes).samples : wire.jsonScan().decodePackedJsonSamples(bytes);
}

export function scoreChunk(registry: Registry, chunk: readonly Sample[] | PackedSamples, encode?: EncodeAs): ChunkReply {
  const samples = Array.isArray(chunk) ? chunk : unpack(chunk as PackedSamples);
  const timed = samples.map((sample): TimedOutcome => {
    const start = process.hrtime.bigint();
    const outcome = outcomeOf(registry, sample);
    return { outcome, seconds: Number(process.hrtime.bigint() - start) / 1e9 };
  });
  if (!encode) return { timed };
  const results = samples.map((sample, k) => toResult(sample, encode.indices[k]!, timed[k]!.outcome, registry.get(sample.verifier)?.version ?? ''));
  const n = samples.length;
  const columns: OutcomeColumns = { status: new Uint8Array(n), reward: new Float64Array(n), seconds: new Float64Array(n), reason: new Array<string>(n), abortedDetails: [] };
  timed.forEach(({ outcome, seconds }, k) => {
    columns.status[k] = STATUSES.indexOf(outcome.status);
    if (outcome.status === 'OK') columns.reward[k] = outcome.reward;
    columns.seconds[k] = seconds;
    columns.reason[k] = outcome.reason;
    if (outcome.status === 'ABORTED') columns.abortedDetails.push([k, outcome.details]);
  });
  return { columns, encoded: exactBytes(wire.formats().CHUNK_ENCODERS[encode.format](results)) };
}

/**
 * The chunk with its bytes alone in a buffer of their size, which the thread then moves to the
 * calling thread (worker.ts). A typed array crosses with its whole ArrayBuffer, not just its view:
 * the writer's spare room (it grows by doubling: up to as much again as the results) would cross
 * too, and stay beside the reply on the thread that sends it until the reply is out (a
 * 65,536-result reply: ~17 MiB of it); and a small writer's buffer is a slice of Node's shared
 * pool, which cannot be moved.
 */
function exactBytes(chunk: EncodedChunk): EncodedChunk {
  const { bytes } = chunk;
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return chunk;
  return { ...chunk, bytes: new Uint8Array(bytes) };
}

export function runTask(registry: Registry, verifierName: string, task: string, payload: Json): Json {
  const fn = registry.get(verifierName)?.tasks?.[task];
  if (!fn) throw new Error(`no task "${task}" on verifier "${verifierName}"`);
  return fn(payload);
}
