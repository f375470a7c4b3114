import type { Json } from '../../core/json';
import type { Registry } from '../../core/registry';
import { aborted, invalid, type Outcome, type Sample } from '../../core/sample';
import { scorePure } from '../../core/score';
import type { EncodedResult, ResultFormat } from '../engine/encoded';
import { toResult } from '../engine/result';
import { RESULT_ENCODERS } from '../wire/formats';

/** An outcome and the CPU time it took, measured where it was computed. */
export interface TimedOutcome {
  outcome: Outcome;
  seconds: number;
  /**
   * The sample's whole result in the asked wire format, when the chunk asked for one. The outcome's
   * details then travel only here (an OK or INVALID outcome comes back with empty details): the
   * calling thread neither receives nor encodes them again.
   */
  encoded?: EncodedResult;
}

/** Where a chunk's results go: the wire format, and each sample's position in its batch (the result's index). */
export interface EncodeAs {
  format: ResultFormat;
  indices: number[];
}

/** What the pool runs: a chunk of pure-verifier samples, or one named task of a verifier. */
export type PoolTask =
  | {
      op: 'score';
      samples: Sample[];
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

export function scoreChunk(registry: Registry, samples: readonly Sample[], encode?: EncodeAs): TimedOutcome[] {
  return samples.map((sample, k) => {
    const start = process.hrtime.bigint();
    const outcome = outcomeOf(registry, sample);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    if (!encode) return { outcome, seconds };
    const result = toResult(sample, encode.indices[k]!, outcome, registry.get(sample.verifier)?.version ?? '');
    const encoded = RESULT_ENCODERS[encode.format](result);
    // ABORTED details stay: the service-failure log reads their error.
    return { outcome: outcome.status === 'ABORTED' ? outcome : { ...outcome, details: {} }, seconds, encoded };
  });
}

export function runTask(registry: Registry, verifierName: string, task: string, payload: Json): Json {
  const fn = registry.get(verifierName)?.tasks?.[task];
  if (!fn) throw new Error(`no task "${task}" on verifier "${verifierName}"`);
  return fn(payload);
}
