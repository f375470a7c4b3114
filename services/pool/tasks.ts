import type { Json } from '../../core/json';
import type { Registry } from '../../core/registry';
import { aborted, invalid, type Outcome, type Sample } from '../../core/sample';
import { scorePure } from '../../core/score';
import type { EncodedChunk, ResultFormat } from '../engine/encoded';
import { toResult } from '../engine/result';
import { decodeScoreRequest } from '../wire/binary';
import { CHUNK_ENCODERS } from '../wire/formats';

/** An outcome and the CPU time it took, measured where it was computed. */
export interface TimedOutcome {
  outcome: Outcome;
  seconds: number;
}

/**
 * What a thread sends back for a chunk: the outcomes and, when asked, the samples' whole results
 * encoded together in the asked wire format. The outcomes' details then travel only there (an OK or
 * INVALID outcome comes back with empty details): the calling thread neither receives nor encodes
 * them again.
 */
export interface ChunkReply {
  timed: TimedOutcome[];
  encoded?: EncodedChunk;
}

/** Where a chunk's results go: the wire format, and each sample's position in its batch (the result's index). */
export interface EncodeAs {
  format: ResultFormat;
  /** A typed array: it crosses to the thread as one copy, where a JavaScript array is cloned item by item. */
  indices: Int32Array;
}

/** What the pool runs: a chunk of pure-verifier samples, or one named task of a verifier. */
export type PoolTask =
  | {
      op: 'score';
      /** The samples, or a ScoreRequest message of them (see EncodedBatch): decoded here, off the calling thread. */
      samples: Sample[] | Uint8Array;
      /** An Int32Array's buffer whose first cell the thread sets when it starts the chunk (its budget runs from then). */
      started?: SharedArrayBuffer;
      encode?: EncodeAs;
    }
  | { op: 'task'; verifier: string; task: string; payload: Json };

function outcomeOf(registry: Registry, sample: Sample): Outcome {
  const verifier = registry.get(sample.verifier);
  if (verifier?.kind === 'pure') return scorePure(verifier, sample);
  return verifier ? aborted('not_a_pure_verifier') : invalid(registry.unknownVerifierReason(sample.verifier));
}

export function scoreChunk(registry: Registry, chunk: readonly Sample[] | Uint8Array, encode?: EncodeAs): ChunkReply {
  // A packed chunk was checked when its request was read (EncodedBatch): it decodes without error.
  const samples = chunk instanceof Uint8Array ? decodeScoreRequest(chunk).samples : chunk;
  const timed = samples.map((sample): TimedOutcome => {
    const start = process.hrtime.bigint();
    const outcome = outcomeOf(registry, sample);
    return { outcome, seconds: Number(process.hrtime.bigint() - start) / 1e9 };
  });
  if (!encode) return { timed };
  const results = samples.map((sample, k) => toResult(sample, encode.indices[k]!, timed[k]!.outcome, registry.get(sample.verifier)?.version ?? ''));
  const encoded = CHUNK_ENCODERS[encode.format](results);
  for (const t of timed) {
    // ABORTED details stay: the service-failure log reads their error.
    if (t.outcome.status !== 'ABORTED') t.outcome = { ...t.outcome, details: {} };
  }
  return { timed, encoded };
}

export function runTask(registry: Registry, verifierName: string, task: string, payload: Json): Json {
  const fn = registry.get(verifierName)?.tasks?.[task];
  if (!fn) throw new Error(`no task "${task}" on verifier "${verifierName}"`);
  return fn(payload);
}
