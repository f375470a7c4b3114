import type OpenAI from 'openai';
import { sleep } from '../../core/abort';
import type { JudgeFailureKind } from '../../core/ports/judge';
import { classifyError, nestFlatErrors, RETRYABLE, type AttemptFailure } from '../judge/errors';
import { retryWait } from '../resilience/retry';
import { Semaphore } from '../resilience/semaphore';
import { textKey, type EmbeddingCache } from './cache';
import type { EmbeddingsEndpoint } from './config';

/** A batch that could not be embedded: the run stops (a re-run resumes from the cache). */
export class EmbeddingsError extends Error {
  constructor(
    readonly kind: JudgeFailureKind | 'wrong_dimensions',
    message: string,
    readonly attempts: number,
  ) {
    super(message);
  }
}

type Reply = { ok: true; vectors: Float32Array[] } | { ok: false; failure: AttemptFailure | { kind: 'wrong_dimensions'; message: string } };

export interface EmbedProgress {
  /** Texts answered from the cache. */
  cached: number;
  /** Texts embedded by the endpoint in this run. */
  embedded: number;
}

/**
 * One OpenAI-compatible `POST /v1/embeddings` endpoint (vLLM, SGLang, TEI, OpenAI) behind the
 * SQLite cache. Texts the cache lacks are sent `batchSize` at a time, at most `maxConcurrency`
 * requests in flight, with `encoding_format: "float"` (the openai package would otherwise ask for
 * base64, which not every server speaks). Failures that may pass (429 with its Retry-After, 5xx,
 * timeouts, dropped connections, a malformed body) are retried within `maxAttempts` and
 * `deadlineMs`; a reply of the wrong length or vector size is the endpoint misconfigured and stops
 * at once. Each batch is stored as it arrives, so a killed run loses at most the batches in flight.
 */
export class EmbeddingsClient {
  private readonly openai: OpenAI;
  private readonly limit: Semaphore;
  /** Vector length: configured, or set by the first vector seen (cached or fresh). */
  private dims: number | null;

  constructor(
    readonly endpoint: EmbeddingsEndpoint,
    private readonly cache: EmbeddingCache,
  ) {
    this.dims = endpoint.dimensions;
    this.limit = new Semaphore(endpoint.maxConcurrency);
    // Loaded with the first client: every command imports curate's, few call an embeddings endpoint.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    this.openai = new (require('openai') as typeof import('openai')).default({
      baseURL: endpoint.url,
      apiKey: endpoint.apiKey,
      maxRetries: 0,
      timeout: endpoint.attemptTimeoutMs + 1_000,
      fetch: nestFlatErrors(globalThis.fetch),
    });
  }

  get dimensions(): number | null {
    return this.dims;
  }

  /**
   * The vector of every text, in order. Equal texts are embedded once. `progress` is told after
   * the cache look-up and after each stored batch.
   */
  async embed(texts: readonly string[], progress?: (p: EmbedProgress) => void, signal?: AbortSignal): Promise<Float32Array[]> {
    const keys = texts.map(textKey);
    const found = new Map<string, Float32Array>();
    for (let i = 0; i < texts.length; i++) {
      const key = keys[i]!;
      if (found.has(key)) continue;
      const hit = this.cache.get(this.endpoint.model, key);
      if (hit !== undefined) {
        this.checkDims(hit.length, 'the cache');
        found.set(key, hit);
      }
    }
    const queued = new Set<string>();
    const missing: Array<{ key: string; text: string }> = [];
    for (let i = 0; i < texts.length; i++) {
      const key = keys[i]!;
      if (!found.has(key) && !queued.has(key)) {
        queued.add(key);
        missing.push({ key, text: texts[i]! });
      }
    }
    const counts: EmbedProgress = { cached: texts.length - missing.length, embedded: 0 };
    progress?.(counts);
    const batches: Array<Array<{ key: string; text: string }>> = [];
    for (let i = 0; i < missing.length; i += this.endpoint.batchSize) batches.push(missing.slice(i, i + this.endpoint.batchSize));
    let failed: EmbeddingsError | null = null;
    await Promise.all(
      batches.map(async (batch) => {
        const vectors = await this.batch(batch, signal, () => failed !== null);
        if (vectors instanceof EmbeddingsError) {
          failed ??= vectors;
          return;
        }
        if (vectors === null) return;
        this.cache.putMany(this.endpoint.model, batch.map((b, k) => ({ key: b.key, vector: vectors[k]! })));
        batch.forEach((b, k) => found.set(b.key, vectors[k]!));
        counts.embedded += batch.length;
        progress?.(counts);
      }),
    );
    if (failed) throw failed;
    return keys.map((key) => found.get(key)!);
  }

  private checkDims(length: number, where: string): void {
    if (this.dims === null) this.dims = length;
    else if (length !== this.dims) {
      throw new EmbeddingsError('wrong_dimensions', `embeddings endpoint ${this.endpoint.name} (${this.endpoint.model}): a vector of ${length} dimensions from ${where}, expected ${this.dims}`, 0);
    }
  }

  /** One batch with its retries; null when another batch failed first (no point sending it). */
  private async batch(batch: ReadonlyArray<{ key: string; text: string }>, signal: AbortSignal | undefined, stop: () => boolean): Promise<Float32Array[] | EmbeddingsError | null> {
    const { maxAttempts, deadlineMs } = this.endpoint;
    const seed = batch[0]!.key;
    let deadlineAt: number | undefined;
    for (let attempts = 1; ; attempts++) {
      const release = await this.limit.acquire(signal);
      if (!release) return new EmbeddingsError('cancelled', 'cancelled while queued', attempts - 1);
      if (stop()) {
        release();
        return null;
      }
      deadlineAt ??= performance.now() + deadlineMs;
      let reply: Reply;
      try {
        reply = await this.attempt(batch.map((b) => b.text), signal, deadlineAt);
      } finally {
        release();
      }
      if (reply.ok) return reply.vectors;
      const { failure } = reply;
      const where = `embeddings endpoint ${this.endpoint.name} (${this.endpoint.url}, ${this.endpoint.model})`;
      if (failure.kind === 'wrong_dimensions') return new EmbeddingsError('wrong_dimensions', `${where}: ${failure.message}`, attempts);
      if (!RETRYABLE.has(failure.kind) || attempts >= maxAttempts) return new EmbeddingsError(failure.kind, `${where}: ${failure.kind} after ${attempts} attempts: ${failure.message}`, attempts);
      const wait = retryWait(this.endpoint, attempts - 1, seed, 'retryAfterMs' in failure ? failure.retryAfterMs : undefined);
      if (performance.now() + wait >= deadlineAt) return new EmbeddingsError('deadline', `${where}: ${failure.message}; no time left before the deadline (${deadlineMs} ms) to retry`, attempts);
      if (!(await sleep(wait, signal))) return new EmbeddingsError('cancelled', 'cancelled while waiting to retry', attempts);
    }
  }

  private async attempt(input: string[], signal: AbortSignal | undefined, deadlineAt: number): Promise<Reply> {
    const controller = new AbortController();
    let abortedBy: JudgeFailureKind | undefined;
    const remaining = deadlineAt - performance.now();
    const timer = setTimeout(
      () => {
        abortedBy = remaining <= this.endpoint.attemptTimeoutMs ? 'deadline' : 'timeout';
        controller.abort();
      },
      Math.max(0, Math.min(remaining, this.endpoint.attemptTimeoutMs)),
    );
    const onCancel = () => {
      abortedBy = 'cancelled';
      controller.abort();
    };
    signal?.addEventListener('abort', onCancel, { once: true });
    try {
      const body = {
        model: this.endpoint.model,
        input,
        encoding_format: 'float' as const,
        ...(this.endpoint.dimensions !== null ? { dimensions: this.endpoint.dimensions } : {}),
      };
      const response: unknown = await this.openai.embeddings.create(body, { signal: controller.signal });
      return this.read(response, input.length);
    } catch (error) {
      return { ok: false, failure: classifyError(error, abortedBy, Date.now()) };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCancel);
    }
  }

  /** The reply's vectors in input order (`data[i].index`), every one checked. */
  private read(response: unknown, count: number): Reply {
    const malformed = (message: string): Reply => ({ ok: false, failure: { kind: 'malformed', message } });
    const data = (response as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) return malformed('reply has no "data" array');
    if (data.length !== count) return malformed(`reply has ${data.length} embeddings for ${count} inputs`);
    const vectors: Array<Float32Array | undefined> = new Array(count);
    for (let k = 0; k < data.length; k++) {
      const entry = data[k] as { index?: unknown; embedding?: unknown } | null;
      const index = entry?.index ?? k;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || vectors[index] !== undefined) return malformed(`data[${k}].index: ${JSON.stringify(index)} is not a distinct input index`);
      const embedding = entry?.embedding;
      if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) return malformed(`data[${k}].embedding: expected a non-empty array of finite numbers`);
      if (this.dims !== null && embedding.length !== this.dims) return { ok: false, failure: { kind: 'wrong_dimensions', message: `data[${k}].embedding has ${embedding.length} dimensions, expected ${this.dims}${this.endpoint.dimensions !== null ? ' (embeddings.endpoints.' + this.endpoint.name + '.dimensions)' : ' (as the first vector had)'}` } };
      this.dims ??= embedding.length;
      vectors[index] = Float32Array.from(embedding as number[]);
    }
    return { ok: true, vectors: vectors as Float32Array[] };
  }
}
