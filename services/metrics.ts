import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ScoreResult } from '../core/sample';
import type { EngineObserver } from './engine/engine';

/** Prometheus metrics of one server: samples by verifier and status, latencies, queue depth. */
export class Metrics implements EngineObserver {
  readonly registry = new Registry();
  private readonly samples = new Counter({
    name: 'verdict_samples_total',
    help: 'Samples scored, by verifier and status',
    labelNames: ['verifier', 'status'] as const,
    registers: [this.registry],
  });
  private readonly sampleSeconds = new Histogram({
    name: 'verdict_sample_seconds',
    help: 'Time to score one sample, by verifier',
    labelNames: ['verifier'] as const,
    buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [this.registry],
  });
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

  onResult(result: ScoreResult, seconds: number): void {
    // Unknown verifier names come from callers: one label value for all of them keeps cardinality bounded.
    const verifier = result.verifierVersion === '' ? '(unknown)' : result.verifier;
    this.samples.inc({ verifier, status: result.status });
    if (result.status !== 'INVALID') this.sampleSeconds.observe({ verifier }, seconds);
  }
}
