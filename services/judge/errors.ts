import type { JudgeFailureKind } from '../../core/ports/judge';
import { parseErrorBody, retryAfterMs, statusKind } from '../resilience/retry';

/** Kinds worth another attempt: the next one may well succeed. */
export const RETRYABLE: ReadonlySet<JudgeFailureKind> = new Set([
  'malformed',
  'rate_limited',
  'server_error',
  'timeout',
  'connection',
]);

export interface AttemptFailure {
  kind: JudgeFailureKind;
  message: string;
  /** The wait the server asked for (`Retry-After`), in ms. */
  retryAfterMs?: number;
}

/**
 * Maps what the openai client threw to a failure kind. `abortedBy` is set when our own timer or
 * the caller's signal aborted the attempt, which the client reports only as a generic abort.
 */
export function classifyError(error: unknown, abortedBy: JudgeFailureKind | undefined, nowMs: number): AttemptFailure {
  const message = error instanceof Error ? error.message : String(error);
  if (abortedBy) return { kind: abortedBy, message: `${abortedBy}: ${message}` };
  // The client's module, loaded by then (client.ts loads it on first use; see openaiClass there).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = require('openai') as typeof import('openai');
  if (error instanceof APIUserAbortError) return { kind: 'cancelled', message };
  if (error instanceof APIConnectionTimeoutError) return { kind: 'timeout', message };
  if (error instanceof APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause;
    return { kind: 'connection', message: cause instanceof Error ? `${message} (${cause.message})` : message };
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const failure: AttemptFailure = { kind: statusKind(error.status), message };
    const wait = retryAfterMs(error.headers, nowMs);
    return wait === undefined ? failure : { ...failure, retryAfterMs: wait };
  }
  // A 200 whose body is not JSON at all (a proxy's HTML page): the reply is unusable, like bad JSON.
  if (error instanceof SyntaxError) return { kind: 'malformed', message: `response body: ${message}` };
  // undici reports a socket closed mid-body as "TypeError: terminated".
  return { kind: 'connection', message };
}

/**
 * vLLM before 0.10.1 and SGLang's /v1 routes answer errors flat,
 * `{"object":"error","message":…,"type":…,"param":…,"code":…}`; the openai package reads only the
 * nested `{"error":{…}}` shape and would lose the message. This fetch wrapper nests flat bodies so
 * every error reaches the client in one shape; successful responses pass through untouched.
 */
export function nestFlatErrors(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.ok) return response;
    const text = await response.text();
    const body = parseErrorBody(text);
    const nested = body?.flat
      ? JSON.stringify({ error: { message: body.message, type: body.type, param: body.param, code: body.code } })
      : text;
    const headers = new Headers(response.headers);
    // The body was decoded and may have changed length.
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(nested, { status: response.status, statusText: response.statusText, headers });
  };
}
