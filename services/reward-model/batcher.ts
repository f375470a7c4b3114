import { Semaphore } from '../resilience/semaphore';

export interface BatcherOptions {
  maxBatch: number;
  concurrency: number;
}

/**
 * Groups queued jobs into batches of at most `maxBatch` and runs at most `concurrency` batches at
 * once. There is no linger timer: jobs queued in the same turn of the event loop leave together, and
 * while every slot is busy the queue grows, so batches fill up exactly when the server is the
 * bottleneck. Jobs that are already settled (deadline, cancellation) are dropped at dispatch.
 */
export class Batcher<J extends { settled: boolean }> {
  private queue: J[] = [];
  /** Index of the next job in `queue`; avoids O(n) shifts when thousands of samples queue at once. */
  private head = 0;
  private readonly slots: Semaphore;
  private scheduled = false;

  constructor(
    private readonly options: BatcherOptions,
    private readonly run: (batch: J[]) => Promise<void>,
  ) {
    this.slots = new Semaphore(options.concurrency);
  }

  push(job: J): void {
    this.queue.push(job);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  /** Batches in flight now. */
  inFlight(): number {
    return this.slots.inFlight;
  }

  private drain(): void {
    for (;;) {
      const release = this.slots.tryAcquire();
      if (!release) return;
      const batch: J[] = [];
      while (batch.length < this.options.maxBatch && this.head < this.queue.length) {
        const job = this.queue[this.head++]!;
        if (!job.settled) batch.push(job);
      }
      if (this.head === this.queue.length) {
        this.queue = [];
        this.head = 0;
      }
      if (batch.length === 0) return release();
      void this.run(batch).finally(() => {
        release();
        this.drain();
      });
    }
  }
}
