import type { Sample, ScoreResult } from '../core/sample';
import type { VerdictConfig } from '../services/config';
import type { EngineLimits } from '../services/engine/engine';
import type { EngineResult } from '../services/engine/encoded';
import { Scorer } from '../services/engine/scorer';
import type { PoolEntry } from '../services/pool/worker';
import { openRuntime } from '../services/runtime';

/**
 * The CLI's one seam to the serving path: score a batch, in-process (here) or on remote replicas
 * (remote-scorer.ts, loaded only for --server: the gRPC client is not part of a local run's start-up).
 * Everything else in cli/ sees only this interface, so a change of the engine or gRPC client lands here.
 */
export interface TimedResult {
  result: ScoreResult;
  /** Seconds the verifier took (in-process), or the batch's round trip (remote). */
  seconds: number;
}

export interface BatchScorer {
  score(samples: readonly Sample[]): Promise<TimedResult[]>;
  /** Batches worth keeping in flight to keep every worker or replica busy. */
  readonly parallelism: number;
  close(): Promise<void>;
}

export async function localScorer(options: { workers: number; config: VerdictConfig; limits?: Partial<EngineLimits>; verifiers?: PoolEntry }): Promise<BatchScorer> {
  // A Map, each entry taken back when its batch returns: a WeakMap of 100k results costs the
  // collector more than the lookups (verdict score on the dataset bench).
  const seconds = new Map<EngineResult, number>();
  const runtime = await openRuntime({
    workers: options.workers,
    config: options.config,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.verifiers ? { verifiers: options.verifiers } : {}),
    observer: { onResult: (result, s) => seconds.set(result, s) },
  });
  const scorer = new Scorer(runtime.engine);
  return {
    // Two batches in flight: one is read and written while the other is scored.
    parallelism: 2,
    async score(samples) {
      // Shaping is the caller's (it applies to remote results too): results as scored, in order.
      const { results } = await scorer.score({ samples, groupOptions: null });
      return results.map((result) => {
        const s = seconds.get(result) ?? 0;
        seconds.delete(result);
        return { result, seconds: s };
      });
    },
    close: () => runtime.close(),
  };
}
