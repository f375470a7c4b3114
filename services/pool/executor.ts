import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
import type { Json } from '../../core/json';
import type { Registry } from '../../core/registry';
import type { Sample } from '../../core/sample';
import type { PackedSamples } from '../engine/encoded';
import { runTask, scoreChunk, type ChunkReply, type EncodeAs, type PoolTask } from './tasks';
import type { ThreadCollections } from './collections';
import { takeThreads, threadCollections } from './threads';
import type { PoolEntry } from './worker';

/** Where pure, CPU-bound work runs: on worker threads, or inline for single-threaded runs. */
export interface Executor {
  readonly threads: number;
  /**
   * `budgetMs`: wall-clock milliseconds the chunk may run once a thread has started it; past it the
   * thread is stopped and the promise rejects with `OverBudget` (the inline executor cannot stop
   * its own thread and ignores it). `encode`: encode each result in that wire format beside scoring
   * it (pool threads; the inline executor leaves encoding to the transport, on the same thread anyway).
   * `samples` may be a scanned batch's packed chunk (ScannedBatch), decoded where it is scored.
   * `collectYoung`: the chunk is a large request's, and its thread collects its young generation
   * first (pool threads, see worker.ts; the inline executor's thread is the caller's, left to V8).
   */
  scoreChunk(samples: Sample[] | PackedSamples, signal: AbortSignal, budgetMs?: number, encode?: EncodeAs, collectYoung?: boolean): Promise<ChunkReply>;
  runTask(verifier: string, task: string, payload: Json, signal: AbortSignal): Promise<Json>;
  /**
   * A job of the pool's entry module (PoolJobs) on a thread, under `budgetMs` as a chunk; the
   * buffers of `transferList` move to the thread. Pool executors only: the inline executor has no
   * entry module, and its callers do the job's work on their own thread.
   */
  runJob?(name: string, payload: unknown, signal: AbortSignal, budgetMs?: number, transferList?: ArrayBuffer[]): Promise<unknown>;
  /** Asks each pool thread for a full garbage collection when it is next free (none for the inline executor). */
  collectThreads(): void;
  /** Chunks waiting for a thread. */
  queued(): number;
  close(): Promise<void>;
}

/** A chunk that held its thread past its budget (see `Executor.scoreChunk`). */
export class OverBudget extends Error {
  constructor(readonly limitMs: number) {
    super(`held its thread past ${limitMs} ms`);
  }
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

  async scoreChunk(samples: Sample[] | PackedSamples, signal: AbortSignal): Promise<ChunkReply> {
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

  collectThreads(): void {}

  async close(): Promise<void> {}
}

/**
 * A piscina worker-thread pool (./threads.ts, which may have started its threads already); an
 * aborted chunk is dropped from the queue, or its thread stopped.
 */
export class PoolExecutor implements Executor {
  private readonly pool: Piscina;
  private readonly collections: ThreadCollections;

  /** `entry` is the caller's registry too (`entry.createRegistry()`), so both sides agree on verifiers. */
  constructor(
    entry: PoolEntry,
    readonly threads: number = availableParallelism(),
  ) {
    this.pool = takeThreads(entry.module, threads);
    this.collections = threadCollections(this.pool);
  }

  async scoreChunk(samples: Sample[] | PackedSamples, signal: AbortSignal, budgetMs?: number, encode?: EncodeAs, collectYoung = false): Promise<ChunkReply> {
    // A packed chunk's buffer is moved to the thread, not copied (see SampleBatch.chunk).
    const transferList = Array.isArray(samples) ? [] : [samples.bytes.buffer as ArrayBuffer];
    const task = { op: 'score' as const, samples, ...(encode ? { encode } : {}), ...(collectYoung ? { collectYoung: true as const } : {}) };
    return (await this.runBudgeted(task, signal, budgetMs, transferList)) as ChunkReply;
  }

  collectThreads(): void {
    this.collections.request();
  }

  /** Full collections the threads have done on request (collectThreads), all threads together. */
  threadCollections(): number {
    return this.collections.done();
  }

  runJob(name: string, payload: unknown, signal: AbortSignal, budgetMs?: number, transferList: ArrayBuffer[] = []): Promise<unknown> {
    return this.runBudgeted({ op: 'job', name, payload }, signal, budgetMs, transferList);
  }

  /** A chunk or job, stopped past `budgetMs` from when a thread takes it (OverBudget). */
  private async runBudgeted(task: Extract<PoolTask, { op: 'score' | 'job' }>, signal: AbortSignal, budgetMs: number | undefined, transferList: ArrayBuffer[]): Promise<unknown> {
    const transfer = transferList.length > 0 ? { transferList } : {};
    if (budgetMs === undefined) return this.pool.run(task, { signal, ...transfer });
    // The budget runs from when a thread takes the task, not from when it was queued: the thread
    // raises a shared flag, and a timer here watches it.
    const started = new SharedArrayBuffer(4);
    const flag = new Int32Array(started);
    // One controller that both the caller's signal and the watchdog stop; the listener on the
    // caller's signal (shared by every chunk of a batch) is removed when the chunk ends.
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    let overBudget: OverBudget | undefined;
    let since: number | undefined;
    const timer = setInterval(
      () => {
        if (Atomics.load(flag, 0) === 0) return;
        const now = performance.now();
        since ??= now;
        if (now - since >= budgetMs && !stop.signal.aborted) stop.abort((overBudget = new OverBudget(budgetMs)));
      },
      Math.max(10, Math.min(250, budgetMs / 4)),
    );
    try {
      return await this.pool.run({ ...task, started }, { signal: stop.signal, ...transfer });
    } catch (error) {
      if (overBudget) throw overBudget;
      throw error;
    } finally {
      clearInterval(timer);
      signal.removeEventListener('abort', onAbort);
    }
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
