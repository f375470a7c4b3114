import { randomUUID } from 'node:crypto';
import pino, { type DestinationStream, type Logger } from 'pino';
import { knownDetails, type EngineResult } from './engine/encoded';
import type { LogLevel } from './log-levels';

export type { Logger };
export { LOG_LEVELS, type LogLevel } from './log-levels';

/**
 * One JSON object per line on stdout (or `destination`): level by name, ISO time, so log shippers
 * and `jq` read it without a pino-specific decoder.
 */
export function createLogger(level: LogLevel = 'info', destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'verdict', pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A logger that writes nothing: what library code gets when no one asked for logs. */
export const silentLogger: Logger = pino({ level: 'silent' });

/** Header (HTTP) and metadata key (gRPC) that carry a request id, both ways. */
export const REQUEST_ID_KEY = 'x-request-id';

// Ids are echoed into logs and headers: accept what tracing systems send, nothing that could forge a line.
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:\-/+=]{1,128}$/;

/** The caller's request id when it is usable, else a fresh UUID. */
export function requestIdFrom(incoming: string | undefined): string {
  return incoming !== undefined && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
}

/** Results per status of one request, as a log field: `{ "OK": 3, "ABORTED": 1 }`. */
export class StatusCounts {
  readonly counts: Record<string, number> = {};

  add(status: string): void {
    this.counts[status] = (this.counts[status] ?? 0) + 1;
  }

  addAll(results: ReadonlyArray<{ status: string }>): void {
    for (const result of results) this.add(result.status);
  }
}

/** What one request log line says; `outcome` is the gRPC status name or the HTTP status code. */
export interface RequestRecord {
  api: string;
  requestId: string;
  samples: number;
  statuses: Record<string, number>;
  outcome: string | number;
  durationMs: number;
  error?: string;
}

export function logRequest(logger: Logger, record: RequestRecord): void {
  const failed = typeof record.outcome === 'number' ? record.outcome >= 500 : record.outcome !== 'OK';
  const fields = { ...record, durationMs: Math.round(record.durationMs * 10) / 10 };
  if (failed) logger.warn(fields, 'request failed');
  else logger.info(fields, 'request');
}

/** Reasons that say the caller or the server's lifecycle stopped the work, not a failing service. */
const LIFECYCLE_REASONS = new Set(['deadline', 'cancelled', 'shutdown']);

/** Which service an ABORTED result blames: the one it names, else the one its reason or verifier implies. */
function serviceOf(result: EngineResult): string {
  const named = knownDetails(result)?.['service'];
  if (typeof named === 'string') return named;
  if (result.reason.startsWith('judge_')) return 'judge';
  if (result.reason.startsWith('sandbox_')) return 'sandbox';
  if (result.verifier === 'rlhf') return 'rewardModel';
  if (result.verifier === 'code' || result.verifier === 'puzzle') return 'sandbox';
  if (result.verifier === 'search') return 'judge';
  return result.verifier;
}

/** The first error text a result's details carry, cut short: enough to say why, not a dump. */
function errorOf(result: EngineResult): string | undefined {
  for (const key of ['error', 'judge_error', 'message']) {
    const value = knownDetails(result)?.[key];
    if (typeof value === 'string') return value.length > 300 ? `${value.slice(0, 300)}…` : value;
  }
  return undefined;
}

/**
 * A warning when a service fails a sample (judge, reward model, sandbox, …), at most one line per
 * service and reason per `intervalMs`; the next line says how many were folded into it. A judge that
 * is down under a 10,000-sample batch gives one line, not 10,000.
 */
export class ServiceFailureLog {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** An ABORTED result's details are known on every transport (see EncodedResult). */
  onResult(result: EngineResult): void {
    if (result.status !== 'ABORTED' || LIFECYCLE_REASONS.has(result.reason)) return;
    const service = serviceOf(result);
    const key = `${service}\u0000${result.reason}`;
    const seen = this.last.get(key);
    const at = this.now();
    if (seen && at - seen.at < this.intervalMs) {
      seen.suppressed++;
      return;
    }
    const error = errorOf(result);
    this.logger.warn(
      {
        service,
        reason: result.reason,
        verifier: result.verifier,
        ...(error !== undefined ? { error } : {}),
        suppressed: seen?.suppressed ?? 0,
      },
      'service failed a sample',
    );
    this.last.set(key, { at, suppressed: 0 });
  }
}
