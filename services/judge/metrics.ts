import { Counter, Histogram, register as defaultRegistry, type Registry } from 'prom-client';
import type { JudgeFailureKind } from '../../core/ports/judge';

export type AttemptResult = 'ok' | JudgeFailureKind;

/** Prometheus metrics of every judge endpoint, labelled by endpoint name. */
export interface JudgeMetrics {
  /** HTTP attempts sent, by how each ended. */
  requests: Counter<'endpoint' | 'result'>;
  /** Attempts repeated, by the failure that caused the retry. */
  retries: Counter<'endpoint' | 'kind'>;
  /** Judge calls that gave up (the sample goes ABORTED), by failure kind. */
  failures: Counter<'endpoint' | 'kind'>;
  /** Seconds per HTTP attempt. */
  latency: Histogram<'endpoint'>;
  /** Calls answered without a request: from SQLite, or shared with an identical call in flight. */
  cacheHits: Counter<'endpoint' | 'source'>;
}

function counter<L extends string>(registry: Registry, name: string, help: string, labelNames: L[]): Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Counter) return existing as Counter<L>;
  return new Counter({ name, help, labelNames, registers: [registry] });
}

/**
 * Registers the judge metrics on `registry` (prom-client's default registry when omitted). Asking
 * twice for the same registry returns the same metrics, so several clients can share them.
 */
export function judgeMetrics(registry: Registry = defaultRegistry): JudgeMetrics {
  const latencyName = 'verdict_judge_request_seconds';
  const existing = registry.getSingleMetric(latencyName);
  const latency =
    existing instanceof Histogram
      ? (existing as Histogram<'endpoint'>)
      : new Histogram({
          name: latencyName,
          help: 'Seconds per judge HTTP attempt',
          labelNames: ['endpoint'],
          buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
          registers: [registry],
        });
  return {
    requests: counter(registry, 'verdict_judge_requests_total', 'Judge HTTP attempts by result', ['endpoint', 'result']),
    retries: counter(registry, 'verdict_judge_retries_total', 'Judge attempts retried, by failure kind', ['endpoint', 'kind']),
    failures: counter(registry, 'verdict_judge_failures_total', 'Judge calls that gave up, by failure kind', ['endpoint', 'kind']),
    latency,
    cacheHits: counter(registry, 'verdict_judge_cache_hits_total', 'Judge calls answered without a request', ['endpoint', 'source']),
  };
}
