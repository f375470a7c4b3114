import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Piscina } from 'piscina';
import type { Json } from '../../core/json';
import type { Registry } from '../../core/registry';
import type { Sample } from '../../core/sample';
import { runTask, scoreChunk, type PoolTask, type TimedOutcome } from './tasks';

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

/** The module each pool thread builds its registry from (`createRegistry()`): the verifiers Verdict serves. */
export const DEFAULT_REGISTRY_MODULE = path.join(__dirname, '..', '..', 'verifiers', 'index.js');

/** A piscina worker-thread pool; an aborted chunk is dropped from the queue, or its thread stopped. */
export class PoolExecutor implements Executor {
  private readonly pool: Piscina;

  /** `registryModule` must build the same registry as the caller's, so both sides agree on verifiers. */
  constructor(
    readonly threads: number = availableParallelism(),
    registryModule: string = DEFAULT_REGISTRY_MODULE,
  ) {
    this.pool = new Piscina({
      filename: path.join(__dirname, 'worker.js'),
      workerData: { registryModule },
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
