import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { z } from 'zod';
import { onAbort, sleep } from '../../core/abort';
import type { JudgeFailureKind, JudgePort, JudgeRequest, JudgeResult } from '../../core/ports/judge';
import { cacheKey, type JudgeCache } from './cache';
import type { EndpointSettings } from './config';
import { classifyError, nestFlatErrors, RETRYABLE, type AttemptFailure } from './errors';
import type { JudgeMetrics } from './metrics';
import { parseReply } from './reply';
import { retryWait } from '../resilience/retry';
import { Semaphore } from '../resilience/semaphore';

type RawResult = { ok: true; json: unknown; attempts: number } | { ok: false; failure: AttemptFailure; attempts: number };

type Attempt = { ok: true; json: unknown } | { ok: false; failure: AttemptFailure };

/** The OpenAI client, loaded when a judge is configured: ~150 modules that a run without a judge does not need at start-up. */
function openaiClass(): typeof OpenAI {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('openai') as typeof import('openai')).default;
}

/**
 * One OpenAI-compatible judge endpoint. A call is answered from the cache when it can; otherwise
 * it waits for one of `maxConcurrency` slots, sends, validates the reply against the schema, and
 * retries failures that may pass (429, 5xx, timeouts, connection errors, malformed replies) with
 * backoff or the server's Retry-After, within `maxAttempts` and the call's deadline. Identical calls
 * in flight at once share one request, so equal answers in a group get the same verdict.
 */
export class JudgeClient implements JudgePort {
  readonly name: string;
  readonly model: string;
  private readonly openai: OpenAI;
  private readonly limit: Semaphore;
  private readonly inFlight = new Map<string, Promise<RawResult>>();

  constructor(
    private readonly settings: EndpointSettings,
    private readonly metrics: JudgeMetrics,
    private readonly cache?: JudgeCache,
  ) {
    this.name = settings.name;
    this.model = settings.model;
    this.limit = new Semaphore(settings.maxConcurrency);
    this.openai = new (openaiClass())({
      baseURL: settings.url,
      apiKey: settings.apiKey,
      // Retries are ours: they also cover malformed replies, and they count against the deadline.
      maxRetries: 0,
      // Our own timer aborts the attempt (headers and body alike); this is only a backstop.
      timeout: settings.attemptTimeoutMs + 1_000,
      fetch: nestFlatErrors(globalThis.fetch),
    });
  }

  /** Requests to this endpoint in flight now (never above `maxConcurrency`). */
  get inFlightRequests(): number {
    return this.limit.inFlight;
  }

  async judge<T>(request: JudgeRequest<T>, options: { signal?: AbortSignal } = {}): Promise<JudgeResult<T>> {
    const body = this.body(request);
    const key = cacheKey({
      model: this.model,
      messages: request.messages,
      schema: { name: request.schema.name, schema: request.schema.jsonSchema },
      sampling: { temperature: this.settings.temperature, max_tokens: this.settings.maxTokens, extra: this.settings.extraBody },
    });
    const stored = this.cache?.get(key);
    if (stored !== undefined) {
      const parsed = request.schema.zod.safeParse(stored);
      if (parsed.success) {
        this.metrics.cacheHits.inc({ endpoint: this.name, source: 'sqlite' });
        return { ok: true, value: parsed.data, source: 'cache', attempts: 0 };
      }
    }

    const result = await this.shareOrCall(body, key, request.schema.zod, options.signal);
    if (!result.ok) this.metrics.failures.inc({ endpoint: this.name, kind: result.kind });
    return result;
  }

  private async shareOrCall<T>(
    body: ChatCompletionCreateParamsNonStreaming,
    key: string,
    schema: z.ZodType<T>,
    signal: AbortSignal | undefined,
  ): Promise<JudgeResult<T>> {
    const leader = this.inFlight.get(key);
    if (leader) {
      const shared = await leader;
      // The leader's caller may have been cancelled while this one was not: then ask anew.
      if (shared.ok || shared.failure.kind !== 'cancelled' || signal?.aborted) {
        if (shared.ok) this.metrics.cacheHits.inc({ endpoint: this.name, source: 'inflight' });
        return this.typed(shared, schema, 'shared');
      }
    }
    const run = this.call(body, key, schema, signal);
    this.inFlight.set(key, run);
    try {
      return this.typed(await run, schema, 'judge');
    } finally {
      if (this.inFlight.get(key) === run) this.inFlight.delete(key);
    }
  }

  private typed<T>(raw: RawResult, schema: z.ZodType<T>, source: 'judge' | 'shared'): JudgeResult<T> {
    if (!raw.ok) return { ok: false, kind: raw.failure.kind, message: raw.failure.message, attempts: raw.attempts };
    // parseReply already validated it against the schema the key was made from; this re-parse
    // produces the typed value (and guards a caller whose zod refinements differ).
    const parsed = schema.safeParse(raw.json);
    if (!parsed.success) return { ok: false, kind: 'malformed', message: 'reply does not fit the schema', attempts: raw.attempts };
    return { ok: true, value: parsed.data, source, attempts: raw.attempts };
  }

  private body<T>(request: JudgeRequest<T>): ChatCompletionCreateParamsNonStreaming {
    return {
      ...this.settings.extraBody,
      model: this.model,
      // Roles come from verifiers' prompts (system/user/assistant); the package's type lists every role.
      messages: request.messages as ChatCompletionCreateParamsNonStreaming['messages'],
      temperature: this.settings.temperature,
      max_tokens: this.settings.maxTokens,
      response_format: {
        type: 'json_schema',
        json_schema: { name: request.schema.name, strict: true, schema: request.schema.jsonSchema },
      },
    };
  }

  private async call(
    body: ChatCompletionCreateParamsNonStreaming,
    key: string,
    schema: z.ZodType,
    signal: AbortSignal | undefined,
  ): Promise<RawResult> {
    const { maxAttempts, deadlineMs } = this.settings;
    let deadlineAt: number | undefined;
    for (let attempts = 1; ; attempts++) {
      const release = await this.limit.acquire(signal);
      if (!release) return { ok: false, failure: { kind: 'cancelled', message: 'cancelled while queued' }, attempts: attempts - 1 };
      // The deadline starts at the first send, not in the queue: a large batch waiting for slots
      // is the limit doing its job, not a slow judge.
      deadlineAt ??= performance.now() + deadlineMs;
      if (performance.now() >= deadlineAt) {
        release();
        return { ok: false, failure: { kind: 'deadline', message: 'deadline passed while queued for a retry' }, attempts: attempts - 1 };
      }
      let attempt: Attempt;
      try {
        attempt = await this.attempt(body, schema, signal, deadlineAt);
      } finally {
        release();
      }
      if (attempt.ok) {
        this.cache?.put(key, this.model, attempt.json);
        return { ok: true, json: attempt.json, attempts };
      }
      const { failure } = attempt;
      if (!RETRYABLE.has(failure.kind) || attempts >= maxAttempts) return { ok: false, failure, attempts };
      const wait = retryWait(this.settings, attempts - 1, key, failure.retryAfterMs);
      if (performance.now() + wait >= deadlineAt) {
        return { ok: false, failure: { ...failure, message: `${failure.message}; no time left before the deadline to retry` }, attempts };
      }
      this.metrics.retries.inc({ endpoint: this.name, kind: failure.kind });
      if (!(await sleep(wait, signal))) {
        return { ok: false, failure: { kind: 'cancelled', message: 'cancelled while waiting to retry' }, attempts };
      }
    }
  }

  private async attempt(
    body: ChatCompletionCreateParamsNonStreaming,
    schema: z.ZodType,
    signal: AbortSignal | undefined,
    deadlineAt: number,
  ): Promise<Attempt> {
    const controller = new AbortController();
    let abortedBy: JudgeFailureKind | undefined;
    const remaining = deadlineAt - performance.now();
    const byDeadline = remaining <= this.settings.attemptTimeoutMs;
    const timer = setTimeout(() => {
      abortedBy = byDeadline ? 'deadline' : 'timeout';
      controller.abort();
    }, Math.max(0, Math.min(remaining, this.settings.attemptTimeoutMs)));
    const unsubscribe = signal
      ? onAbort(signal, () => {
          abortedBy = 'cancelled';
          controller.abort();
        })
      : () => {};
    const started = performance.now();
    let result: Attempt;
    try {
      const completion: unknown = await this.openai.chat.completions.create(body, { signal: controller.signal });
      const reply = parseReply(completion, schema);
      result = reply.ok ? reply : { ok: false, failure: { kind: 'malformed', message: reply.message } };
    } catch (error) {
      result = { ok: false, failure: classifyError(error, abortedBy, Date.now()) };
    } finally {
      clearTimeout(timer);
      unsubscribe();
    }
    this.metrics.latency.observe({ endpoint: this.name }, (performance.now() - started) / 1000);
    this.metrics.requests.inc({ endpoint: this.name, result: result.ok ? 'ok' : result.failure.kind });
    return result;
  }
}
