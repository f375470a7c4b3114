import type { Json } from '../../core/json';
import type { Registry } from '../../core/registry';
import { aborted, invalid, type Outcome, type Sample } from '../../core/sample';
import { scorePure } from '../../core/score';

/** An outcome and the CPU time it took, measured where it was computed. */
export interface TimedOutcome {
  outcome: Outcome;
  seconds: number;
}

/** What the pool runs: a chunk of pure-verifier samples, or one named task of a verifier. */
export type PoolTask =
  | {
      op: 'score';
      samples: Sample[];
      /** An Int32Array's buffer whose first cell the thread sets when it starts the chunk (its budget runs from then). */
      started?: SharedArrayBuffer;
    }
  | { op: 'task'; verifier: string; task: string; payload: Json };

export function scoreChunk(registry: Registry, samples: readonly Sample[]): TimedOutcome[] {
  return samples.map((sample) => {
    const start = process.hrtime.bigint();
    const verifier = registry.get(sample.verifier);
    const outcome =
      verifier?.kind === 'pure'
        ? scorePure(verifier, sample)
        : verifier
          ? aborted('not_a_pure_verifier')
          : invalid(registry.unknownVerifierReason(sample.verifier));
    return { outcome, seconds: Number(process.hrtime.bigint() - start) / 1e9 };
  });
}

export function runTask(registry: Registry, verifierName: string, task: string, payload: Json): Json {
  const fn = registry.get(verifierName)?.tasks?.[task];
  if (!fn) throw new Error(`no task "${task}" on verifier "${verifierName}"`);
  return fn(payload);
}
