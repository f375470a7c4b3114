import { createHash } from 'node:crypto';
import type { Backoff, RetryPolicy } from './policy';

/**
 * Delay before retry `retry` (0 for the first): `min(initial·2^retry, max)` less up to `jitter` of
 * it. The jitter fraction is a hash of `seed` and the retry number, not Math.random: different
 * requests still spread apart, yet a run can be replayed exactly. It only moves timing; no verdict
 * depends on it.
 */
export function backoffDelay(backoff: Backoff, retry: number, seed: string): number {
  const base = Math.min(backoff.initialMs * 2 ** retry, backoff.maxMs);
  return base * (1 - backoff.jitter * unitFraction(`${seed}:${retry}`));
}

function unitFraction(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) / 2 ** 32;
}

/** The wait before retry `retry`: the server's Retry-After (capped by the policy) when it sent one, else backoff. */
export function retryWait(policy: RetryPolicy, retry: number, seed: string, retryAfter: number | undefined): number {
  return retryAfter !== undefined ? Math.min(retryAfter, policy.maxRetryAfterMs) : backoffDelay(policy.backoff, retry, seed);
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

/** What an HTTP error status says about the endpoint. */
export type StatusKind = 'rate_limited' | 'timeout' | 'server_error' | 'rejected';

/** 429 rate limit, 408 timeout, 409 conflict and 5xx may pass on another attempt; other 4xx will not. */
export function statusKind(status: number): StatusKind {
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  if (status === 409 || status >= 500) return 'server_error';
  return 'rejected';
}

export function isRetryableStatus(status: number): boolean {
  return statusKind(status) !== 'rejected';
}

/** The fields of an error body, in either shape vLLM and SGLang answer. */
export interface ErrorBody {
  message: string | null;
  type: unknown;
  param: unknown;
  code: unknown;
  /** The body was the flat shape `{"object":"error","message":…}` rather than `{"error":{…}}`. */
  flat: boolean;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * Reads an error body: nested `{"error":{"message",…}}` (OpenAI, vLLM >= 0.10.1, SGLang native
 * routes), flat `{"object":"error","message",…}` (older vLLM, SGLang `/v1/*`), or FastAPI's
 * `{"detail":…}`. Undefined when the text is not JSON or none of these.
 */
export function parseErrorBody(text: string): ErrorBody | undefined {
  let body: Record<string, unknown> | undefined;
  try {
    body = record(JSON.parse(text));
  } catch {
    return undefined;
  }
  if (!body) return undefined;
  const nested = record(body['error']);
  const pick = (from: Record<string, unknown>, flat: boolean): ErrorBody => ({
    message: typeof from['message'] === 'string' ? from['message'] : null,
    type: from['type'] ?? null,
    param: from['param'] ?? null,
    code: from['code'] ?? null,
    flat,
  });
  if (nested) return pick(nested, false);
  if (typeof body['error'] === 'string') return { message: body['error'], type: null, param: null, code: null, flat: true };
  if (body['object'] === 'error' || typeof body['message'] === 'string') return pick(body, true);
  if (typeof body['detail'] === 'string') return { message: body['detail'], type: null, param: null, code: null, flat: true };
  return undefined;
}

/** The message of an error body in any of the shapes the servers use, else the text itself (cut). */
export function errorMessage(text: string): string {
  const message = parseErrorBody(text)?.message;
  return message !== null && message !== undefined && message !== '' ? message : text.slice(0, 500);
}
