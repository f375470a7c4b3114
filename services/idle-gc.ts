import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** What the collector watches: samples not yet answered, and samples answered so far. */
export interface WorkCounter {
  pendingSamples(): number;
  answeredSamples(): number;
}

export interface IdleCollectionOptions {
  /** Samples answered since the last collection before one is worth its pause. */
  afterSamples: number;
  /** How long the server must have had nothing pending. */
  idleMs: number;
}

export const IDLE_COLLECTION: IdleCollectionOptions = { afterSamples: 16_384, idleMs: 1_000 };

/**
 * A full garbage collection of the main thread once the server has answered many samples and then
 * had nothing to do for `idleMs`. A large request's results are promoted to V8's old space while it
 * runs, and they keep its request and reply buffers (outside the heap: the request as grpc-js joined
 * it, the reply, framed where it was written: services/grpc/grpc-js-memory.ts) alive until V8's next full collection, which on an idle
 * server its memory reducer starts 15–30 s later. Collecting when idle hands them back within a
 * second or two (one 65,536-sample request: RSS 370 → ~298 MiB) at the cost of a pause of tens of
 * milliseconds when nothing is waiting. The server passes a `collect` that also asks each pool
 * thread for a full collection (pool/collections.ts): an idle thread's old space otherwise keeps
 * the large requests' garbage, as no collection runs on a thread with nothing to do. Returns the stop.
 */
export function collectWhenIdle(
  work: WorkCounter,
  options: IdleCollectionOptions = IDLE_COLLECTION,
  collect: () => void = garbageCollector(),
): () => void {
  let answeredAtLast = work.answeredSamples();
  let idleSince: number | null = null;
  const timer = setInterval(() => {
    if (work.pendingSamples() > 0) {
      idleSince = null;
      return;
    }
    const now = performance.now();
    idleSince ??= now;
    if (now - idleSince < options.idleMs || work.answeredSamples() - answeredAtLast < options.afterSamples) return;
    answeredAtLast = work.answeredSamples();
    collect();
  }, Math.max(50, Math.floor(options.idleMs / 4)));
  timer.unref();
  return () => clearInterval(timer);
}

/** V8's `gc` function: a full collection, or with `{ type: 'minor' }` one of the young generation alone. */
type V8Gc = (options?: { type: 'minor' | 'major' }) => void;

/**
 * V8's `gc()`, a full collection of the current thread's heap. Node exposes it only with
 * `--expose-gc`; the flag set at run time takes effect for contexts made afterwards, so a fresh
 * context hands the function over.
 */
export function garbageCollector(): () => void {
  const gc = v8Gc();
  return () => gc();
}

/**
 * A collection of the current thread's young generation alone (a scavenge): its cost follows what
 * is still alive there, so it is cheap when the objects allocated since the last one are garbage.
 */
export function youngCollector(): () => void {
  // Exposed on first use: a thread that never collects sets no V8 flag.
  let gc: V8Gc | undefined;
  return () => (gc ??= v8Gc())({ type: 'minor' });
}

function v8Gc(): V8Gc {
  const exposed = (globalThis as { gc?: V8Gc }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as V8Gc;
}
