import { createHash } from 'node:crypto';

export interface BackoffPolicy {
  /** Delay before the first retry. */
  initialMs: number;
  /** Cap on the exponential delay. */
  maxMs: number;
  /** Fraction in [0, 1] taken off the delay at most, to spread retries of a batch apart. */
  jitter: number;
}

/**
 * Delay before retry `retry` (0 for the first): `min(initial·2^retry, max)` less up to `jitter` of
 * it. The jitter fraction is a hash of `seed` (the request's cache key) and the retry number, not
 * Math.random: different requests still spread apart, yet a run can be replayed exactly. It only
 * moves timing; no verdict depends on it.
 */
export function backoffDelay(policy: BackoffPolicy, retry: number, seed: string): number {
  const base = Math.min(policy.initialMs * 2 ** retry, policy.maxMs);
  return base * (1 - policy.jitter * unitFraction(`${seed}:${retry}`));
}

function unitFraction(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) / 2 ** 32;
}

/**
 * The server's requested wait in ms, from `retry-after-ms` (OpenAI's extension), else
 * `retry-after` in seconds or as an HTTP date; undefined when absent or unreadable.
 */
export function retryAfterMs(headers: Headers | undefined, nowMs: number): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headers.get('retry-after');
  if (after === null || after.trim() === '') return undefined;
  if (Number.isFinite(Number(after))) return Math.max(0, Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Resolves after `ms`, or early with false when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
