import { setMaxListeners } from 'node:events';
import type { Registry } from '../../core/registry';
import { aborted, invalid, type Outcome, type Sample, type ScoreResult } from '../../core/sample';
import { scoreAsync } from '../../core/score';
import type { AsyncVerifier, Services, VerifierEnv } from '../../core/verifier';
import { OverBudget, type Executor } from '../pool/executor';
import type { ChunkReply } from '../pool/tasks';
import { asBatch, type SampleBatch } from './batch';
import { chunkHeads, EncodedResult, type EngineResult, type WireFormat } from './encoded';
import { responseTooLong, toResult } from './result';

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
  /**
   * `seconds` scoring the sample; `waitedSeconds` the rest of its time since the batch was admitted.
   * On a serving path a result may be encoded (its details in its bytes; see knownDetails).
   */
  onResult(result: EngineResult, seconds: number, waitedSeconds: number): void;
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

/** `R`: the results the call gets, whole (`ScoreResult`) unless it asks them `encode`d. */
export interface ScoreOptions<R extends EngineResult = ScoreResult> {
  /** Aborting it (reason "deadline", "cancelled", …) ends the batch; unfinished samples come back ABORTED. */
  signal?: AbortSignal;
  /** Called once per result as soon as it is decided (streaming). */
  onResult?(result: R): void;
  /**
   * Samples the transport already found malformed while decoding (a label nested too deep): position
   * → INVALID reason. They get their result without being scored; the rest of the batch is unaffected.
   */
  rejected?: ReadonlyMap<number, string>;
  /**
   * Have pool threads encode each pure sample's result in this wire format as they score it (see
   * EncodedResult): for callers that send results as they are.
   */
  encode?: R extends ScoreResult ? undefined : WireFormat;
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
 * Samples from which a batch is large: its chunks' threads collect their young generation before
 * each (see poolHandler: resident memory, at about a millisecond a chunk, which small batches do not
 * pay), and answering this many makes the server collect once idle (IDLE_COLLECTION).
 */
export const LARGE_BATCH = 16_384;

/**
 * Scores batches: every input sample gets exactly one result, in input order. Pure verifiers run on
 * the executor in chunks; async verifiers run here, awaiting their services. Knows nothing of gRPC.
 */
export class Engine {
  readonly limits: EngineLimits;
  private pending = 0;
  private answered = 0;
  private accepting = true;
  /** A batch of LARGE_BATCH samples or more ran since the threads last collected (collectThreadsAfterLarge). */
  private largeSinceCollection = false;
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

  /**
   * Asks each pool thread for a full garbage collection when it is next free (Executor.collectThreads),
   * if a large batch ran since the last time: that is where their old space holds garbage. A thread's
   * full collection also costs its next work (+30–60% thread CPU a sample on the serving bench's
   * 4,096-sample calls after one, same machine), so small batches, which leave little, never pay it.
   * Answers whether it asked.
   */
  collectThreadsAfterLarge(): boolean {
    if (!this.largeSinceCollection) return false;
    this.largeSinceCollection = false;
    this.options.executor.collectThreads();
    return true;
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

  /**
   * Rejects with RequestRefused when the batch cannot be admitted; otherwise resolves one result per
   * sample, in input order: whole results, or, with `encode`, pure samples' results encoded by the
   * pool threads. An array of whole samples is scored as an ArrayBatch.
   */
  score(samples: readonly Sample[] | SampleBatch, options?: ScoreOptions): Promise<ScoreResult[]>;
  score(samples: readonly Sample[] | SampleBatch, options: ScoreOptions<EngineResult>): Promise<EngineResult[]>;
  score(samples: readonly Sample[] | SampleBatch, options: ScoreOptions<EngineResult> = {}): Promise<EngineResult[]> {
    const batch = asBatch(samples);
    const count = batch.routes.length;
    try {
      this.admit(count);
    } catch (error) {
      return Promise.reject(error);
    }
    this.pending += count;
    const run = this.run(batch, options).finally(() => {
      this.pending -= count;
      this.answered += count;
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

  /** One batch: each sample settled at once (refused) or sent where its verifier runs; done when all are settled. */
  private async run(batch: SampleBatch, options: ScoreOptions<EngineResult>): Promise<EngineResult[]> {
    const linked = linkSignals([this.shutdown.signal, options.signal]);
    const results = new BatchResults(batch, this.registry, linked.signal, (result, seconds, waitedSeconds) => {
      this.options.observer?.onResult(result, seconds, waitedSeconds);
      options.onResult?.(result);
    });
    const pure = this.route(batch, options.rejected, results, linked.signal);
    this.sendPure(batch, pure, results, linked.signal, options.encode);
    const out = await results.done;
    linked.dispose();
    return out;
  }

  /**
   * Settles the samples refused before scoring (rejected by the transport, an unknown verifier, a
   * response over the limit), starts the async ones here, and answers the pure ones' positions.
   */
  private route(batch: SampleBatch, rejected: ReadonlyMap<number, string> | undefined, results: BatchResults, signal: AbortSignal): number[] {
    const pure: number[] = [];
    const limit = this.limits.maxResponseChars;
    batch.routes.forEach((sample, index) => {
      const refusal = rejected?.get(index);
      if (refusal !== undefined) return results.settle(index, invalid(refusal));
      const verifier = this.registry.get(sample.verifier);
      if (!verifier) return results.settle(index, invalid(this.registry.unknownVerifierReason(sample.verifier)));
      // A bound over the limit (a scanned response's UTF-8 bytes) is checked against the decoded characters.
      if (batch.responseCharsAtMost(index) > limit && batch.sample(index).response.length > limit) {
        return results.settle(index, responseTooLong(limit));
      }
      if (verifier.kind === 'pure') pure.push(index);
      else void this.runAsync(verifier, batch.sample(index), signal).then((timed) => results.settle(index, timed.outcome, timed.seconds));
    });
    return pure;
  }

  /**
   * Sends the pure samples to the executor in chunks, at most WINDOW per thread out at a time: a
   * chunk is built (a scanned batch's chunk copies its samples' bytes) only when it is sent, so a
   * large request holds a few chunks' copies, not all.
   */
  private sendPure(batch: SampleBatch, pure: readonly number[], results: BatchResults, signal: AbortSignal, encode: WireFormat | undefined): void {
    const threads = Math.max(1, this.options.executor.threads);
    const chunk = Math.max(Math.min(MIN_CHUNK, pure.length), Math.min(MAX_CHUNK, Math.ceil(pure.length / (threads * 4))));
    let next = 0;
    let out = 0;
    const sendMore = (): void => {
      for (; out < threads * WINDOW && next < pure.length && !signal.aborted; next += chunk) {
        out++;
        void this.runChunk(batch, pure.slice(next, next + chunk), results, signal, encode).finally(() => {
          out--;
          sendMore();
        });
      }
    };
    sendMore();
  }

  /**
   * One chunk on the executor, its results settled. A thread lost with its chunk (a crash, a value it
   * could not send back, a sample over its time) has each sample scored again on its own, so only
   * the one that causes it is lost: ABORTED `worker_timeout` or `worker_failed`, never a reward.
   */
  private runChunk(batch: SampleBatch, indices: number[], results: BatchResults, signal: AbortSignal, encode: WireFormat | undefined): Promise<unknown> {
    const budgetMs = this.limits.sampleBudgetMs + this.limits.chunkSampleMs * (indices.length - 1);
    const encodeAs = encode ? { format: encode, indices: Int32Array.from(indices) } : undefined;
    const large = batch.routes.length >= LARGE_BATCH;
    if (large) this.largeSinceCollection = true;
    return this.options.executor.scoreChunk(batch.chunk(indices), signal, budgetMs, encodeAs, large).then(
      (reply): void => results.settleChunk(indices, reply),
      (error: unknown): void | Promise<unknown> => {
        if (signal.aborted) return indices.forEach((i) => results.settle(i, aborted(abortReason(signal))));
        if (indices.length > 1) return Promise.all(indices.map((i) => this.runChunk(batch, [i], results, signal, encode)));
        const outcome = error instanceof OverBudget ? aborted('worker_timeout', { limitMs: error.limitMs }) : aborted('worker_failed', { error: String(error) });
        return results.settle(indices[0]!, outcome);
      },
    );
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

/** A signal that aborts, with the same reason, when any of `parents` does; `dispose` unhooks it from them. */
function linkSignals(parents: ReadonlyArray<AbortSignal | undefined>): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  // Every pool chunk of the batch listens on this signal.
  setMaxListeners(0, controller.signal);
  const forward = new Map<AbortSignal, () => void>();
  for (const parent of parents) {
    if (parent === undefined) continue;
    const stop = () => controller.abort(abortReason(parent));
    if (parent.aborted) stop();
    else {
      parent.addEventListener('abort', stop, { once: true });
      forward.set(parent, stop);
    }
  }
  return {
    signal: controller.signal,
    dispose() {
      for (const [parent, stop] of forward) parent.removeEventListener('abort', stop);
    },
  };
}

/**
 * A batch's results as they are decided: each position settled once (a later outcome for it is
 * dropped), reported as it is, and every position not yet settled ABORTED when the batch's signal
 * aborts. `done` resolves when all are settled.
 */
class BatchResults {
  private readonly results: Array<EngineResult | undefined>;
  private remaining: number;
  private readonly admittedAt = performance.now();
  private finish!: (results: EngineResult[]) => void;
  readonly done = new Promise<EngineResult[]>((resolve) => (this.finish = resolve));

  constructor(
    private readonly batch: SampleBatch,
    private readonly registry: Registry,
    private readonly signal: AbortSignal,
    private readonly report: (result: EngineResult, seconds: number, waitedSeconds: number) => void,
  ) {
    this.results = new Array<EngineResult | undefined>(batch.routes.length);
    this.remaining = batch.routes.length;
    if (this.remaining === 0) this.finish([]);
    if (signal.aborted) this.abortRest();
    else signal.addEventListener('abort', this.abortRest, { once: true });
  }

  settle(index: number, outcome: Outcome, seconds = 0): void {
    if (this.results[index] !== undefined) return;
    const sample = this.batch.routes[index]!;
    this.add(index, toResult(sample, index, outcome, this.versionOf(sample.verifier)), seconds);
  }

  /** A chunk's reply: outcomes as objects, or results a thread encoded (outcomes in columns, bytes in the chunk's). */
  settleChunk(indices: readonly number[], reply: ChunkReply): void {
    if ('timed' in reply) return reply.timed.forEach((t, k) => this.settle(indices[k]!, t.outcome, t.seconds));
    const { columns, encoded } = reply;
    const heads = chunkHeads(columns, encoded, indices, this.batch.routes, this.versionOf);
    indices.forEach((index, k) => {
      if (this.results[index] === undefined) this.add(index, new EncodedResult(heads, k), columns.seconds[k]!);
    });
  }

  private readonly versionOf = (verifier: string): string => this.registry.get(verifier)?.version ?? '';

  private add(index: number, result: EngineResult, seconds: number): void {
    this.results[index] = result;
    this.report(result, seconds, (performance.now() - this.admittedAt) / 1000 - seconds);
    if (--this.remaining === 0) {
      this.signal.removeEventListener('abort', this.abortRest);
      this.finish(this.results as EngineResult[]);
    }
  }

  private readonly abortRest = (): void => {
    const outcome = aborted(abortReason(this.signal));
    for (let i = 0; i < this.results.length; i++) this.settle(i, outcome);
  };
}

