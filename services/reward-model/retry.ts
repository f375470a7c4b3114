import { isRetryableStatus, retryWait } from '../resilience/retry';
import type { RetryPolicy } from '../resilience/policy';
import type { Attempt } from './http';

/** Transient failures worth another attempt: overload, server errors, timeouts, lost connections. */
export function isRetryable(attempt: Attempt): boolean {
  switch (attempt.kind) {
    case 'network':
    case 'timeout':
      return true;
    case 'status':
      return isRetryableStatus(attempt.status);
    default:
      return false;
  }
}

/**
 * The wait before retry number `retry` (0-based) of a batch: the server's Retry-After (capped)
 * when it sent one, else backoff with jitter seeded by `seed` (the batch), never Math.random.
 */
export function retryDelay(policy: RetryPolicy, retry: number, attempt: Attempt, seed: string): number {
  return retryWait(policy, retry, seed, attempt.kind === 'status' ? attempt.retryAfterMs : undefined);
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
