import { abortReason, onAbort, sleep } from '../../core/abort';
import { Batcher } from './batcher';
import type { ChatMessage } from '../../core/chat';
import type { RewardModelPort, RmScore } from '../../core/ports/reward-model';
import type { ChatTemplate } from './chat-template';
import type { EndpointConfig } from './config';
import { postJson } from './http';
import { protocolFor, type RewardProtocol, type RmInput } from './protocol';
import { describeAttempt, isRetryable, retryDelay } from './retry';

interface Job {
  input: RmInput;
  deadlineAt: number;
  attempts: number;
  settled: boolean;
  settle(result: RmScore): void;
  /** Set while the job is in an HTTP batch: lets the batch stop once nobody waits for it. */
  onSettle?: () => void;
}

/** Statuses that may be caused by one input of a batch (too long, unparsable), not by the endpoint. */
const INPUT_ERRORS = new Set([400, 413, 422]);

/**
 * One configured reward-model server. `score` may be called for thousands of conversations at
 * once; they are batched, sent with bounded concurrency, retried on transient failures and each
 * answered exactly once — with the server's raw logit or a failure, never a made-up number.
 */
export class RewardModelEndpoint implements RewardModelPort {
  private readonly protocol: RewardProtocol;
  private readonly batcher: Batcher<Job>;
  private readonly url: string;
  private batchesRun = 0;

  constructor(
    readonly name: string,
    readonly config: EndpointConfig,
    private readonly template: ChatTemplate | undefined,
  ) {
    this.protocol = protocolFor(config);
    this.url = config.url.replace(/\/+$/, '') + this.protocol.path;
    this.batcher = new Batcher<Job>(
      { maxBatch: config.maxBatch, concurrency: config.maxConcurrency },
      (batch) => this.runBatch(batch),
    );
  }

  get stripThink(): boolean {
    return this.config.stripThink;
  }

  /** What the server receives for a conversation: the messages, or the templated text. */
  format(messages: readonly ChatMessage[]): RmInput {
    if (this.config.server === 'vllm' && this.config.input === 'messages') return { messages: [...messages] };
    if (!this.template) throw new Error(`endpoint ${this.name} has no chat template`);
    const text = this.template.render(messages);
    const bos = this.config.bosToken;
    return { text: bos !== undefined && text.startsWith(bos) ? text.slice(bos.length) : text };
  }

  score(messages: readonly ChatMessage[], signal?: AbortSignal): Promise<RmScore> {
    let input: RmInput;
    try {
      input = this.format(messages);
    } catch (error) {
      return Promise.resolve({ ok: false, reason: 'chat_template_error', message: (error as Error).message, attempts: 0 });
    }
    return new Promise<RmScore>((resolve) => {
      const deadlineMs = this.config.deadlineMs;
      let unsubscribe = () => {};
      const job: Job = {
        input,
        deadlineAt: performance.now() + deadlineMs,
        attempts: 0,
        settled: false,
        settle(result) {
          if (job.settled) return;
          job.settled = true;
          clearTimeout(timer);
          unsubscribe();
          resolve(result);
          job.onSettle?.();
        },
      };
      const fail = (reason: string, message: string) => job.settle({ ok: false, reason, message, attempts: job.attempts });
      const timer = setTimeout(() => fail('reward_model_deadline', `no score within ${deadlineMs} ms`), deadlineMs);
      if (signal) {
        const cancel = () => fail(abortReason(signal), 'cancelled by the caller');
        if (signal.aborted) return cancel();
        unsubscribe = onAbort(signal, cancel);
      }
      this.batcher.push(job);
    });
  }

  private async runBatch(jobs: Job[]): Promise<void> {
    // Seeds the backoff jitter, so batches that fail together spread their retries apart.
    const seed = this.batchesRun++;
    const stop = new AbortController();
    for (const job of jobs) job.onSettle = () => jobs.every((j) => j.settled) && stop.abort();
    const fail = (batch: Job[], reason: string, message: string) => {
      for (const job of batch) job.settle({ ok: false, reason, message, attempts: job.attempts });
    };
    try {
      for (let attempt = 0; ; attempt++) {
        const batch = jobs.filter((job) => !job.settled);
        if (batch.length === 0) return;
        for (const job of batch) job.attempts++;
        const untilDeadline = Math.max(...batch.map((job) => job.deadlineAt)) - performance.now();
        const timeout = Math.max(1, Math.min(this.config.attemptTimeoutMs, untilDeadline));
        const body = this.protocol.body(batch.map((job) => job.input));
        const result = await postJson(this.url, body, timeout, stop.signal);
        if (result.kind === 'cancelled') return;
        if (result.kind === 'ok') {
          const parsed = this.protocol.parse(result.body, batch.length);
          if (!parsed.ok) return fail(batch, 'reward_model_malformed', parsed.error);
          batch.forEach((job, i) => job.settle({ ok: true, score: parsed.scores[i]!, attempts: job.attempts }));
          return;
        }
        if (!isRetryable(result)) {
          // One over-long or malformed conversation must not sink the others in its batch.
          if (result.kind === 'status' && INPUT_ERRORS.has(result.status) && batch.length > 1) {
            for (const job of batch) await this.runBatch([job]);
            return;
          }
          const reason = result.kind === 'status' ? 'reward_model_rejected' : 'reward_model_malformed';
          return fail(batch, reason, describeAttempt(result));
        }
        if (attempt + 1 >= this.config.maxAttempts) {
          return fail(batch, 'reward_model_unavailable', `${describeAttempt(result)} (after ${attempt + 1} attempts)`);
        }
        await sleep(retryDelay(this.config, attempt, result, `${this.name}:${seed}`), stop.signal);
      }
    } finally {
      for (const job of jobs) job.onSettle = undefined;
    }
  }
}
