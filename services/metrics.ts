import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ResultHead } from '../core/sample';
import type { EngineObserver } from './engine/engine';
import type { SandboxObserver } from './observers';
import type { OutboundObserver } from './outbound';
import { LabelledHistogram, PairCounter } from './sample-tally';

/** What a shaped group came to, as the GroupSummary of the response says. */
export interface GroupVerdict {
  keep: boolean;
  keepReason: string;
}

/** Finish reasons that mean the trainer cut the response at its length limit. */
const TRUNCATED_FINISH_REASONS = new Set(['length', 'max_tokens', 'truncated']);

/** Prometheus metrics of one server: samples by verifier and status, latencies, queues, groups, sandbox. */
export class Metrics implements EngineObserver {
  readonly registry = new Registry();
  private readonly samples = new PairCounter('verdict_samples_total', 'Samples scored, by verifier and status', ['verifier', 'status']).register(this.registry);
  private readonly sampleSeconds = new LabelledHistogram(
    'verdict_sample_seconds',
    'Time to score one sample, by verifier',
    'verifier',
    [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
  ).register(this.registry);
  private readonly waitSeconds = new LabelledHistogram(
    'verdict_sample_wait_seconds',
    'Time one sample spent admitted but not being scored (queued for a worker or a service), by verifier',
    'verifier',
    [0.0001, 0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
  ).register(this.registry);
  /**
   * Rewards of OK samples, by verifier: a dashboard sees the distribution drift during a run. Fine
   * steps over [0, 1], where most verifiers score (le="0.99" against le="1" separates full rewards);
   * coarse ones either side for raw reward-model logits.
   */
  private readonly rewards = new LabelledHistogram(
    'verdict_reward',
    'Reward of one OK sample, by verifier',
    'verifier',
    [-10, -5, -2, -1, -0.5, 0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99, 1, 2, 5, 10],
  ).register(this.registry);
  readonly requestSeconds = new Histogram({
    name: 'verdict_request_seconds',
    help: 'Time to answer one request, by API',
    labelNames: ['api'] as const,
    buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
    registers: [this.registry],
  });
  readonly refused = new Counter({
    name: 'verdict_requests_refused_total',
    help: 'Requests refused as a whole, by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly groups = new Counter({
    name: 'verdict_groups_total',
    help: 'Groups shaped (requests with group options), by dynamic-sampling verdict and reason',
    labelNames: ['kept', 'reason'] as const,
    registers: [this.registry],
  });
  private readonly finishReasons = new Counter({
    name: 'verdict_group_samples_finish_total',
    help: 'Samples of shaped requests that carry metadata.finish_reason, by whether the response was truncated at its length limit',
    labelNames: ['truncated'] as const,
    registers: [this.registry],
  });
  private readonly rmRequests = new Counter({
    name: 'verdict_reward_model_requests_total',
    help: 'HTTP requests sent to reward-model endpoints (retries included), by endpoint and result',
    labelNames: ['endpoint', 'result'] as const,
    registers: [this.registry],
  });
  private readonly rmSeconds = new Histogram({
    name: 'verdict_reward_model_request_seconds',
    help: 'Seconds from sending a reward-model request to its response headers, by endpoint',
    labelNames: ['endpoint'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly sandboxBusy = new Gauge({
    name: 'verdict_sandbox_slots_busy',
    help: 'Sandbox slots running a program now',
    registers: [this.registry],
  });
  private readonly sandboxStarts = new Counter({
    name: 'verdict_sandbox_slot_starts_total',
    help: 'Sandbox slot processes started (at start-up and as replacements)',
    registers: [this.registry],
  });
  private readonly sandboxKills = new Counter({
    name: 'verdict_sandbox_kills_total',
    help: 'Sandbox slot processes killed, by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  constructor() {
    // process_* and nodejs_* series: CPU, RSS, heap, event-loop lag, GC, handles.
    collectDefaultMetrics({ register: this.registry });
  }

  readonly sandbox: SandboxObserver = {
    slotBusy: (delta) => this.sandboxBusy.inc(delta),
    slotStarted: () => this.sandboxStarts.inc(),
    slotKilled: (reason) => this.sandboxKills.inc({ reason }),
  };

  readonly rewardModel: OutboundObserver = {
    request: (endpoint, result, seconds) => {
      this.rmRequests.inc({ endpoint, result });
      if (seconds !== null) this.rmSeconds.observe({ endpoint }, seconds);
    },
  };

  /** `depth()` is read at scrape time. */
  watchQueue(depth: () => { pendingSamples: number; queuedChunks: number }): void {
    new Gauge({
      name: 'verdict_pending_samples',
      help: 'Samples admitted and not yet scored',
      registers: [this.registry],
      collect() {
        this.set(depth().pendingSamples);
      },
    });
    new Gauge({
      name: 'verdict_queued_chunks',
      help: 'Chunks of samples waiting for a worker thread',
      registers: [this.registry],
      collect() {
        this.set(depth().queuedChunks);
      },
    });
  }

  onResult(result: ResultHead, seconds: number, waitedSeconds: number): void {
    // Unknown verifier names come from callers: one label value for all of them keeps cardinality bounded.
    const verifier = result.verifierVersion === '' ? '(unknown)' : result.verifier;
    this.samples.inc(verifier, result.status);
    if (result.status === 'INVALID') return;
    if (result.status === 'OK' && result.reward !== undefined) this.rewards.observe(verifier, result.reward);
    this.sampleSeconds.observe(verifier, seconds);
    this.waitSeconds.observe(verifier, Math.max(0, waitedSeconds));
  }

  /** The groups of a request that asked for shaping. */
  onGroups(groups: readonly GroupVerdict[]): void {
    for (const group of groups) this.groups.inc({ kept: String(group.keep), reason: group.keep ? '' : group.keepReason });
  }

  /** The finish reasons of a shaped request's samples (`length` = cut at the length limit). */
  onFinishReasons(reasons: readonly string[]): void {
    for (const reason of reasons) this.finishReasons.inc({ truncated: String(TRUNCATED_FINISH_REASONS.has(reason)) });
  }
}
