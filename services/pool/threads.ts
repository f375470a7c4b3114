import { Piscina } from 'piscina';
import { ThreadCollections, type PoolThreadData } from './collections';

// Only piscina: a command can start its threads here before it loads the verifiers, the engine or
// the wire codecs (each thread loads its own copy of them meanwhile, on another core).

/** A pool's threads over a pool entry module (see PoolEntry in ./worker.ts), each loading that module. */
export function startThreads(module: string, threads: number): Piscina {
  const workerData: PoolThreadData = { collections: new ThreadCollections().buffer };
  return new Piscina({
    filename: module,
    workerData,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.POSITIVE_INFINITY,
    // Between tasks a thread waits on its event loop, not in Atomics.wait (piscina's default): V8
    // runs a heap's own tasks there (finishing a concurrent marking, the memory reducer). Blocked
    // threads never ran them, and each thread's old space grew request after request (15 → 55 MiB
    // over a soak of 65,536-sample requests; ~23 MiB with this). Tasks are chunks of 64–512
    // samples, so the slower hand-off of a message does not show in throughput.
    atomics: 'disabled',
  });
}

/** Threads started ahead of the executor that will use them (startThreadsEarly). */
let early: { module: string; threads: number; pool: Piscina } | null = null;

/**
 * Starts a pool's threads now, for the next PoolExecutor over the same module and thread count to
 * take (takeThreads). A thread spends its first ~0.3 s loading the verifiers; `verdict score` starts
 * them before its own main thread loads the rest of the run, so that both load at once instead of
 * one after the other. `release` stops them if no executor took them (a run that scored nothing).
 */
export function startThreadsEarly(module: string, threads: number): { readonly pool: Piscina; release(): Promise<void> } {
  const started = { module, threads, pool: startThreads(module, threads) };
  void early?.pool.destroy();
  early = started;
  return {
    pool: started.pool,
    async release() {
      if (early !== started) return;
      early = null;
      await started.pool.destroy();
    },
  };
}

/** The threads startThreadsEarly started for this module and count, else new ones. */
export function takeThreads(module: string, threads: number): Piscina {
  const waiting = early;
  early = null;
  if (waiting && waiting.module === module && waiting.threads === threads) return waiting.pool;
  void waiting?.pool.destroy();
  return startThreads(module, threads);
}

/** How the calling thread asks each of the pool's threads for a full collection (./collections.ts). */
export function threadCollections(pool: Piscina): ThreadCollections {
  return new ThreadCollections((pool.options.workerData as PoolThreadData).collections);
}
