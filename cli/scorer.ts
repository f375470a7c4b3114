import { setMaxListeners } from 'node:events';
import type { Sample, ScoreResult } from '../core/sample';
import type { VerdictConfig } from '../services/config';
import { DEFAULT_LIMITS, type EngineLimits } from '../services/engine/engine';
import type { EngineResult } from '../services/engine/encoded';
import { Scorer } from '../services/engine/scorer';
import type { PoolEntry } from '../services/pool/worker';
import { openRuntime } from '../services/runtime';
import type { RowsJob, RowsReply } from './dataset/pool-rows';
import type { LineBlock } from './dataset/lines';
import type { RowRules } from './dataset/result-rows';
import { rowFields } from './dataset/row-fields';
import { SCORE_VERIFIERS } from './pool-entry';

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
  /**
   * Where the scorer has pool threads of its own (local, with workers): a block of JSONL lines made
   * into result rows on a thread (cli/dataset/pool-rows.ts), rows with async verifiers left to the
   * caller. Rejects when the thread failed or held the block past the engine's budget for that many
   * rows; the caller then scores the block itself, through `score`, where each sample is isolated.
   */
  readonly rows?: (block: LineBlock, after: number, rules: RowRules, format: RowsJob['format']) => Promise<RowsReply>;
  close(): Promise<void>;
}

export async function localScorer(options: { workers: number; config: VerdictConfig; limits?: Partial<EngineLimits>; verifiers?: PoolEntry }): Promise<BatchScorer> {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  // A Map, each entry taken back when its batch returns: a WeakMap of 100k results costs the
  // collector more than the lookups (verdict score on the dataset bench).
  const seconds = new Map<EngineResult, number>();
  const runtime = await openRuntime({
    workers: options.workers,
    config: options.config,
    ...(options.limits ? { limits: options.limits } : {}),
    verifiers: options.verifiers ?? SCORE_VERIFIERS,
    observer: { onResult: (result, s) => seconds.set(result, s) },
  });
  const scorer = new Scorer(runtime.engine);
  const { executor } = runtime;
  // Jobs are not cancelled (the run waits for its batches in flight); piscina listens on the signal once per job.
  const never = new AbortController().signal;
  setMaxListeners(0, never);
  const rows: BatchScorer['rows'] =
    executor.runJob && options.verifiers === undefined
      ? (block, after, rules, format) => {
          const budgetMs = limits.sampleBudgetMs + limits.chunkSampleMs * Math.max(0, block.lines - 1);
          const job: RowsJob = { block, after, rules, config: options.config, maxResponseChars: limits.maxResponseChars, format, fields: rowFields() };
          return executor.runJob!('rows', job, never, budgetMs) as Promise<RowsReply>;
        }
      : undefined;
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
    ...(rows ? { rows } : {}),
    close: () => runtime.close(),
  };
}
