import { setMaxListeners } from 'node:events';
import type { Registry } from '../../core/registry';
import { aborted, invalid, type Outcome, type Sample, type ScoreResult } from '../../core/sample';
import { scoreAsync } from '../../core/score';
import type { AsyncVerifier, Services, VerifierEnv } from '../../core/verifier';
import { OverBudget, type Executor } from '../pool/executor';
import { outcomeAt } from '../pool/tasks';
import { encodedResultShell, type EncodedBatch, type EncodedChunk, type WireFormat } from './encoded';
import { toResult } from './result';

export interface EngineLimits {
  /** Samples in one request; a larger batch is refused as a whole. */
  maxBatchSamples: number;
  /** Samples admitted but not finished, across requests; past it new requests are refused (back-pressure). */
  maxPendingSamples: number;
  /** Characters of one response; a longer one is INVALID. */
  maxResponseChars: number;
  /**
   * Wall-clock milliseconds one pure sample may hold a worker thread. Verdicts are bounded by sizes
   * and operations, not time; this only catches what a bound missed: the thread is stopped, the
   * chunk-mates are scored again on their own, and a sample over it alone is ABORTED
   * `worker_timeout`, never a reward. A chunk gets this plus `chunkSampleMs` per sample.
   */
  sampleBudgetMs: number;
  chunkSampleMs: number;
}

export const DEFAULT_LIMITS: EngineLimits = {
  maxBatchSamples: 65_536,
  maxPendingSamples: 262_144,
  maxResponseChars: 4 * 1024 * 1024,
  sampleBudgetMs: 60_000,
  chunkSampleMs: 100,
};

export interface EngineObserver {
  /** `seconds` scoring the sample; `waitedSeconds` the rest of its time since the batch was admitted. */
  onResult(result: ScoreResult, seconds: number, waitedSeconds: number): void;
}

/** Refusals of a whole request; the service layer maps them to gRPC codes and HTTP statuses. */
export class RequestRefused extends Error {
  constructor(
    readonly kind: 'batch_too_large' | 'overloaded' | 'shutting_down',
    message: string,
  ) {
    super(message);
  }
}

export interface ScoreOptions {
  /** Aborting it (reason "deadline", "cancelled", …) ends the batch; unfinished samples come back ABORTED. */
  signal?: AbortSignal;
  /** Called once per result as soon as it is decided (streaming). */
  onResult?: (result: ScoreResult) => void;
  /**
   * Samples the transport already found malformed while decoding (a label nested too deep): position
   * → INVALID reason. They get their result without being scored; the rest of the batch is unaffected.
   */
  rejected?: ReadonlyMap<number, string>;
  /**
   * Have pool threads encode each pure sample's result in this wire format as they score it (see
   * encoded.ts). Its details then stay in the encoding: for callers that send results as they are.
   */
  encode?: WireFormat;
  /**
   * The batch in its wire form, when `samples` hold only each sample's routing fields (see
   * EncodedBatch): pure samples go to the executor packed, the others are decoded here.
   */
  encoded?: EncodedBatch;
}

export interface EngineOptions {
  registry: Registry;
  executor: Executor;
  services?: Services;
  limits?: Partial<EngineLimits>;
  observer?: EngineObserver;
}

function abortReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'cancelled';
}

/**
 * Most samples a pool task carries: large enough to amortize the thread hop (each task costs a
 * thread a wait for the main thread to hand it the next; 4,096-sample math batches over gRPC ran
 * ~15% faster with 512 than with 128), small enough to stream and to spread a batch over the
 * threads (a batch is cut in at least four chunks per thread).
 */
const MAX_CHUNK = 512;

/**
 * Fewest samples a pool task carries when the batch has them: a request of 64 samples was cut in
 * eight tasks of eight, each paying the hop for a few microseconds of scoring (`bench -- load`,
 * 8 clients × 64 qa+math samples: 13.9k samples/s with that, 20.5k with this).
 */
const MIN_CHUNK = 64;
/** Chunks of one batch out at a time per thread: one running, one waiting for it. */
const WINDOW = 2;

/**
 * Scores batches: every input sample gets exactly one result, in input order. Pure verifiers run on
 * the executor in chunks; async verifiers run here, awaiting their services. Knows nothing of gRPC.
 */
export class Engine {
  readonly limits: EngineLimits;
  private pending = 0;
  private answered = 0;
  private accepting = true;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly shutdown = new AbortController();
  private closing: Promise<void> | null = null;

  constructor(private readonly options: EngineOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    // Every batch in flight listens on the shutdown signal: past 10 concurrent requests Node would
    // warn of a leak that is not one.
    setMaxListeners(0, this.shutdown.signal);
  }

  get registry(): Registry {
    return this.options.registry;
  }

  /** Samples admitted and not yet finished. */
  pendingSamples(): number {
    return this.pending;
  }

  /** Samples answered since the engine started. */
  answeredSamples(): number {
    return this.answered;
  }

  queuedChunks(): number {
    return this.options.executor.queued();
  }

  /** Refuses the request as a whole if it cannot be admitted now; call before any streaming starts. */
  admit(count: number): void {
    if (!this.accepting) throw new RequestRefused('shutting_down', 'server is shutting down');
    if (count > this.limits.maxBatchSamples) {
      throw new RequestRefused(
        'batch_too_large',
        `samples: ${count} samples exceed the limit of ${this.limits.maxBatchSamples} per request`,
      );
    }
    if (this.pending + count > this.limits.maxPendingSamples) {
      throw new RequestRefused(
        'overloaded',
        `queue full: ${this.pending} samples pending, limit ${this.limits.maxPendingSamples}; retry later`,
      );
    }
  }

  /** Rejects with RequestRefused when the batch cannot be admitted; otherwise resolves one result per sample. */
  score(samples: readonly Sample[], options: ScoreOptions = {}): Promise<ScoreResult[]> {
    try {
      this.admit(samples.length);
    } catch (error) {
      return Promise.reject(error);
    }
    this.pending += samples.length;
    const run = this.run(samples, options).finally(() => {
      this.pending -= samples.length;
      this.answered += samples.length;
      this.inFlight.delete(run);
    });
    this.inFlight.add(run);
    return run;
  }

  /**
   * Stops accepting, lets in-flight batches finish for up to `graceMs`, then aborts what is left
   * (reason "shutdown") and closes the executor. Later calls return the same promise.
   */
  close(graceMs = 10_000): Promise<void> {
    this.closing ??= (async () => {
      this.accepting = false;
      const all = Promise.allSettled([...this.inFlight]);
      const timer = setTimeout(() => this.shutdown.abort('shutdown'), graceMs);
      await all;
      clearTimeout(timer);
      await this.options.executor.close();
    })();
    return this.closing;
  }

  private async run(samples: readonly Sample[], options: ScoreOptions): Promise<ScoreResult[]> {
    const controller = new AbortController();
    // Every pool chunk of the batch listens on this signal.
    setMaxListeners(0, controller.signal);
    const parents = [this.shutdown.signal, options.signal].filter((s): s is AbortSignal => s !== undefined);
    const forward = new Map<AbortSignal, () => void>();
    for (const parent of parents) {
      const stop = () => controller.abort(abortReason(parent));
      if (parent.aborted) stop();
      else {
        parent.addEventListener('abort', stop, { once: true });
        forward.set(parent, stop);
      }
    }
    const signal = controller.signal;
    const admittedAt = performance.now();
    const results: Array<ScoreResult | undefined> = new Array(samples.length);
    let remaining = samples.length;
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    if (remaining === 0) finish();

    const settle = (index: number, outcome: Outcome, seconds = 0, encoded?: EncodedChunk, k = 0) => {
      if (results[index] !== undefined) return;
      const sample = samples[index]!;
      const into = encoded ? encodedResultShell(encoded, k) : {};
      const result = toResult(sample, index, outcome, this.registry.get(sample.verifier)?.version ?? '', into);
      results[index] = result;
      this.options.observer?.onResult(result, seconds, (performance.now() - admittedAt) / 1000 - seconds);
      options.onResult?.(result);
      if (--remaining === 0) finish();
    };
    const abortRest = () => {
      const reason = abortReason(signal);
      for (let i = 0; i < samples.length; i++) settle(i, aborted(reason));
    };
    if (signal.aborted) abortRest();
    else signal.addEventListener('abort', abortRest, { once: true });

    const { encoded } = options;
    // A response's UTF-8 bytes bound its characters: only one that may be too long is decoded to count them.
    const responseChars = (index: number): number => {
      if (!encoded) return samples[index]!.response.length;
      const bytes = encoded.responseBytes(index);
      return bytes <= this.limits.maxResponseChars ? bytes : encoded.sample(index).response.length;
    };
    const pure: number[] = [];
    samples.forEach((sample, index) => {
      const rejected = options.rejected?.get(index);
      if (rejected !== undefined) return settle(index, invalid(rejected));
      const verifier = this.registry.get(sample.verifier);
      if (!verifier) return settle(index, invalid(this.registry.unknownVerifierReason(sample.verifier)));
      if (responseChars(index) > this.limits.maxResponseChars) {
        return settle(index, invalid(`response: longer than ${this.limits.maxResponseChars} characters`));
      }
      if (verifier.kind === 'pure') pure.push(index);
      else {
        const whole = encoded ? encoded.sample(index) : sample;
        void this.runAsync(verifier, whole, signal).then((outcome) => settle(index, outcome.outcome, outcome.seconds));
      }
    });

    const threads = Math.max(1, this.options.executor.threads);
    const chunk = Math.max(Math.min(MIN_CHUNK, pure.length), Math.min(MAX_CHUNK, Math.ceil(pure.length / (threads * 4))));
    const runChunk = (indices: number[]): Promise<unknown> => {
      const budgetMs = this.limits.sampleBudgetMs + this.limits.chunkSampleMs * (indices.length - 1);
      return this.options.executor.scoreChunk(
        encoded ? encoded.pack(indices) : indices.map((i) => samples[i]!),
        signal,
        budgetMs,
        options.encode ? { format: options.encode, indices: Int32Array.from(indices) } : undefined,
      ).then(
        (reply) => {
          if ('timed' in reply) return reply.timed.forEach((t, k) => settle(indices[k]!, t.outcome, t.seconds));
          // Results the thread encoded: outcomes in columns, each result's bytes in the chunk's.
          const { columns, encoded: chunk } = reply;
          const abortedDetails = new Map(columns.abortedDetails);
          indices.forEach((index, k) => settle(index, outcomeAt(columns, k, abortedDetails), columns.seconds[k], chunk, k));
        },
        (error: unknown) => {
          if (signal.aborted) {
            for (const i of indices) settle(i, aborted(abortReason(signal)));
          } else if (indices.length > 1) {
            // A thread lost with its chunk (a crash, a value it could not send back, a sample over its
            // time): score each sample on its own, so only the one that causes it is lost.
            return Promise.all(indices.map((i) => runChunk([i])));
          } else if (error instanceof OverBudget) {
            settle(indices[0]!, aborted('worker_timeout', { limitMs: error.limitMs }));
          } else {
            settle(indices[0]!, aborted('worker_failed', { error: String(error) }));
          }
        },
      );
    };
    // At most WINDOW chunks per thread are out at a time: a chunk is built (a packed chunk copies its
    // samples' bytes) only when it is sent, so a large request holds a few chunks' copies, not all.
    let next = 0;
    let out = 0;
    const sendMore = (): void => {
      for (; out < threads * WINDOW && next < pure.length && !signal.aborted; next += chunk) {
        out++;
        void runChunk(pure.slice(next, next + chunk)).finally(() => {
          out--;
          sendMore();
        });
      }
    };
    sendMore();

    await done;
    signal.removeEventListener('abort', abortRest);
    for (const [parent, stop] of forward) parent.removeEventListener('abort', stop);
    return results as ScoreResult[];
  }

  private async runAsync(
    verifier: AsyncVerifier,
    sample: Sample,
    signal: AbortSignal,
  ): Promise<{ outcome: Outcome; seconds: number }> {
    const start = performance.now();
    const env: VerifierEnv = {
      signal,
      services: this.options.services ?? {},
      compute: (task, payload) => this.options.executor.runTask(verifier.name, task, payload, signal),
    };
    const outcome = await scoreAsync(verifier, sample, env);
    return { outcome, seconds: (performance.now() - start) / 1000 };
  }
}
