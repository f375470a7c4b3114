// What each pool thread runs. A thread loads a pool entry module (see PoolEntry), whose default
// export is `poolHandler(createRegistry)`: the registry is built once per thread, so per-verifier
// caches (parsed golds, compiled checkers) live as long as the thread.
import { workerData } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import type { Registry } from '../../core/registry';
import { garbageCollector, youngCollector } from '../idle-gc';
import { answerCollections, type PoolThreadData } from './collections';
import { runTask, scoreChunk, type ChunkReply, type PoolTask } from './tasks';

/**
 * The verifiers a pool serves, in the two forms a pool needs: `createRegistry` for the calling
 * thread, and `module`, the file each worker thread loads (its default export is
 * `poolHandler(createRegistry)` over the same function). Both sides build the same registry
 * because both come from one module, which the compiler checks like any other import.
 */
export interface PoolEntry {
  /** The compiled entry module's path (`__filename` inside it). */
  readonly module: string;
  createRegistry(): Registry;
}

/**
 * Work an entry module adds beside scoring, by name: `verdict score` has its threads read, score and
 * write whole dataset rows (cli/dataset/pool-rows.ts), so that its calling thread only moves lines.
 * A job gets the thread's registry and the payload as sent; what it returns is sent back.
 */
export type PoolJobs = Readonly<Record<string, (registry: Registry, payload: never) => unknown>>;

/**
 * A pool thread's task handler over the registry `createRegistry` builds (on the first task).
 *
 * Memory, for large requests only (their chunks come marked `collectYoung`, engine.ts): before such
 * a chunk the thread collects its young generation (`collectYoung`, V8's scavenge unless a test gives
 * another). By then the previous chunk's samples, outcomes and encodings are garbage, so the
 * scavenge finds almost nothing alive (about a millisecond); what it saves is resident memory. A
 * scavenge leaves the young generation's emptied pages unused, and allocation touches them again
 * only as far as it goes before the next one: left to V8, a scavenge comes when the 16 MiB
 * semi-space is full, so all of it is resident in every busy thread; scavenged at each chunk's
 * start, a chunk's worth is. Small requests' chunks skip it: for them the millisecond was ~11% of
 * the in-process engine's time (qa samples), and their memory is small anyway.
 *
 * A thread of a pool started by threads.ts also runs a full collection of its heap each time the
 * calling thread asks (./collections.ts: the server does when it goes idle after large requests).
 */
export function poolHandler(
  createRegistry: () => Registry,
  jobs: PoolJobs = {},
  collectYoung: () => void = youngCollector(),
): (task: PoolTask) => unknown {
  const shared = workerData as Partial<PoolThreadData> | null | undefined;
  if (shared?.collections instanceof SharedArrayBuffer) {
    // Exposed on first use: a thread never asked sets no V8 flag.
    let collect: (() => void) | undefined;
    answerCollections(shared.collections, () => (collect ??= garbageCollector())());
  }
  let registry: Registry | undefined;
  return (task) => {
    registry ??= createRegistry();
    if (task.op === 'task') return runTask(registry, task.verifier, task.task, task.payload);
    if (task.op === 'score' && task.collectYoung) collectYoung();
    if (task.started) Atomics.store(new Int32Array(task.started), 0, 1);
    if (task.op === 'job') {
      const job = jobs[task.name];
      if (!job) throw new Error(`no job "${task.name}" in this pool's entry module`);
      return job(registry, task.payload as never);
    }
    return movedReply(scoreChunk(registry, task.samples, task.encode));
  };
}

/**
 * An encoded chunk's reply with its buffers moved to the calling thread, not copied: the encoded
 * results (a buffer of their own size, see tasks.ts) and the outcome columns. Copied, each crossed
 * twice (into the message, and out of it into a new buffer on the calling thread, in that thread's
 * malloc heap: ~10 MiB a 65,536-result reply, there until its next full collection).
 */
function movedReply(reply: ChunkReply): unknown {
  if (!('encoded' in reply)) return reply;
  const { encoded, columns } = reply;
  const buffers = [encoded.bytes.buffer, columns.status.buffer, columns.reward.buffer, columns.seconds.buffer];
  return move({ [transferableSymbol]: buffers, [valueSymbol]: reply } as Parameters<typeof move>[0]);
}
