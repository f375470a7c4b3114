import type { Attempt } from './http';

export interface RetryPolicy {
  retries: number;
  backoffMs: number;
  backoffMaxMs: number;
}

/** Transient failures worth another attempt: overload, server errors, timeouts, lost connections. */
export function isRetryable(attempt: Attempt): boolean {
  switch (attempt.kind) {
    case 'network':
    case 'timeout':
      return true;
    case 'status':
      return attempt.status === 408 || attempt.status === 409 || attempt.status === 429 || attempt.status >= 500;
    default:
      return false;
  }
}

/**
 * The wait before retry number `retry` (0-based): the server's Retry-After when it sent one, else
 * exponential backoff. No random jitter — Verdict never calls Math.random — so concurrent batches
 * that fail together retry together; the cap keeps that burst small.
 */
export function retryDelay(policy: RetryPolicy, retry: number, attempt: Attempt): number {
  if (attempt.kind === 'status' && attempt.retryAfterMs !== undefined) return attempt.retryAfterMs;
  return Math.min(policy.backoffMs * 2 ** retry, policy.backoffMaxMs);
}

/** Why a failed attempt failed, in words for `details.message`. */
export function describeAttempt(attempt: Attempt): string {
  switch (attempt.kind) {
    case 'status':
      return `HTTP ${attempt.status}: ${attempt.message}`;
    case 'timeout':
      return 'timed out';
    case 'network':
      return `connection failed: ${attempt.message}`;
    case 'not_json':
      return attempt.message;
    case 'cancelled':
      return 'cancelled';
    case 'ok':
      return 'ok';
  }
}
