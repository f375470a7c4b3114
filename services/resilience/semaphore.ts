import { onAbort } from '../../core/abort';

interface Waiter {
  grant(): void;
  /** Its signal aborted: skipped when a slot frees (dropping it from the array at once would cost O(n)). */
  gone: boolean;
}

/**
 * A counting semaphore with a FIFO queue, the one concurrency limit of outbound clients and
 * isolates: at most `max` holders at once however many callers a batch brings, and a caller whose
 * signal aborts while it waits leaves the queue without ever holding a slot.
 */
export class Semaphore {
  private active = 0;
  private queue: Waiter[] = [];
  private head = 0;
  private waiters = 0;

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency limit must be a positive integer, got ${max}`);
  }

  get inFlight(): number {
    return this.active;
  }

  get waiting(): number {
    return this.waiters;
  }

  /** A release function when a slot is free now and nobody waits for one, else null. Never queues. */
  tryAcquire(): (() => void) | null {
    if (this.active >= this.max || this.waiters > 0) return null;
    this.active++;
    return this.releaser();
  }

  /** Resolves with a release function once a slot is free, or with null if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<(() => void) | null> {
    if (signal?.aborted) return Promise.resolve(null);
    if (this.active < this.max) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      let unsubscribe = () => {};
      const waiter: Waiter = {
        gone: false,
        grant: () => {
          unsubscribe();
          resolve(this.releaser());
        },
      };
      this.queue.push(waiter);
      this.waiters++;
      // One shared listener per signal: a batch's thousands of waiters share the batch's signal.
      if (signal) {
        unsubscribe = onAbort(signal, () => {
          waiter.gone = true;
          this.waiters--;
          resolve(null);
        });
      }
    });
  }

  private next(): Waiter | undefined {
    while (this.head < this.queue.length) {
      const waiter = this.queue[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      if (!waiter.gone) return waiter;
    }
    this.queue = [];
    this.head = 0;
    return undefined;
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.next();
      if (next) {
        // The slot passes straight to the next waiter, so `active` only drops when nobody waits.
        this.waiters--;
        next.grant();
      } else this.active--;
    };
  }
}
