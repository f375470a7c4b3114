import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { Json } from '../../core/json';
import type { Registry } from '../../core/registry';
import type { Sample } from '../../core/sample';
import { runTask, scoreChunk, type PoolTask, type TimedOutcome } from './tasks';
import type { PoolEntry } from './worker';

/** Where pure, CPU-bound work runs: on worker threads, or inline for single-threaded runs. */
export interface Executor {
  readonly threads: number;
  scoreChunk(samples: Sample[], signal: AbortSignal): Promise<TimedOutcome[]>;
  runTask(verifier: string, task: string, payload: Json, signal: AbortSignal): Promise<Json>;
  /** Chunks waiting for a thread. */
  queued(): number;
  close(): Promise<void>;
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
}

/**
 * Runs on the calling thread, yielding to the event loop between chunks so deadlines and new
 * requests are still seen. For `--workers 0`, benchmarks and tests of single-threaded speed.
 */
export class InlineExecutor implements Executor {
  readonly threads = 0;
  constructor(private readonly registry: Registry) {}

  async scoreChunk(samples: Sample[], signal: AbortSignal): Promise<TimedOutcome[]> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    throwIfAborted(signal);
    return scoreChunk(this.registry, samples);
  }

  async runTask(verifier: string, task: string, payload: Json, signal: AbortSignal): Promise<Json> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    throwIfAborted(signal);
    return runTask(this.registry, verifier, task, payload);
  }

  queued(): number {
    return 0;
  }

  async close(): Promise<void> {}
}

/** A piscina worker-thread pool; an aborted chunk is dropped from the queue, or its thread stopped. */
export class PoolExecutor implements Executor {
  private readonly pool: Piscina;

  /** `entry` is the caller's registry too (`entry.createRegistry()`), so both sides agree on verifiers. */
  constructor(
    entry: PoolEntry,
    readonly threads: number = availableParallelism(),
  ) {
    this.pool = new Piscina({
      filename: entry.module,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Number.POSITIVE_INFINITY,
    });
  }

  scoreChunk(samples: Sample[], signal: AbortSignal): Promise<TimedOutcome[]> {
    const task: PoolTask = { op: 'score', samples };
    return this.pool.run(task, { signal }) as Promise<TimedOutcome[]>;
  }

  runTask(verifier: string, task: string, payload: Json, signal: AbortSignal): Promise<Json> {
    const poolTask: PoolTask = { op: 'task', verifier, task, payload };
    return this.pool.run(poolTask, { signal }) as Promise<Json>;
  }

  queued(): number {
    return this.pool.queueSize;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
