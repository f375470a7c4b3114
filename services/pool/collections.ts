// Full garbage collections of a pool's threads, asked for by the calling thread. Piscina hands a task
// to whichever thread is free, so a task cannot reach each thread; and a thread's `parentPort` is
// piscina's own (piscina 5 reads every message there as its start-up message, and a second one stops
// the thread). The pool shares two counters with its threads instead (workerData), and each thread
// waits on the first with `Atomics.waitAsync`: on its event loop, so a request wakes an idle thread
// at once and a busy one when its task ends, and nothing runs on a thread that is not asked.

/** The cells of the shared Int32Array. */
const ASKED = 0;
const DONE = 1;

/** What a pool's threads get as `workerData` (threads.ts). */
export interface PoolThreadData {
  collections: SharedArrayBuffer;
}

/** `Atomics.waitAsync` (ES2024; Node 16+), which the compiler's ES2022 library does not declare. */
const waitAsync = (Atomics as unknown as {
  waitAsync(cells: Int32Array, index: number, value: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync;

/** The calling thread's side. */
export class ThreadCollections {
  private readonly cells: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT)) {
    this.cells = new Int32Array(buffer);
  }

  /** Asks each thread for one full collection of its heap; a thread busy with a task collects when it ends. */
  request(): void {
    Atomics.add(this.cells, ASKED, 1);
    Atomics.notify(this.cells, ASKED);
  }

  /** Collections the threads have done on request, all threads together (requests that came while one ran count once). */
  done(): number {
    return Atomics.load(this.cells, DONE);
  }
}

/**
 * A thread's side: a full collection (`collect`) each time the calling thread asks, for as long as
 * the thread lives. A thread started after a request waits for the next one.
 */
export function answerCollections(buffer: SharedArrayBuffer, collect: () => void): void {
  const cells = new Int32Array(buffer);
  let seen = Atomics.load(cells, ASKED);
  const answer = (): void => {
    seen = Atomics.load(cells, ASKED);
    collect();
    Atomics.add(cells, DONE, 1);
    wait();
  };
  const wait = (): void => {
    const waiting = waitAsync(cells, ASKED, seen);
    if (waiting.async) void waiting.value.then(answer);
    else answer();
  };
  wait();
}
