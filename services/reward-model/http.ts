/** One HTTP attempt's result, as data: the retry policy decides from it, nothing is thrown. */
export type Attempt =
  | { kind: 'ok'; body: unknown }
  | { kind: 'status'; status: number; message: string; retryAfterMs?: number }
  | { kind: 'not_json'; message: string }
  | { kind: 'network'; message: string }
  | { kind: 'timeout' }
  | { kind: 'cancelled' };

/**
 * The message of an error body in any of the shapes the servers use: nested
 * `{"error": {"message"}}` (vLLM >= 0.10.1, SGLang native routes), flat
 * `{"object": "error", "message"}` (older vLLM, SGLang `/v1/*`), or plain text.
 */
export function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown };
    const nested = typeof body.error === 'object' ? body.error?.message : body.error;
    for (const candidate of [nested, body.message, body.detail]) {
      if (typeof candidate === 'string' && candidate !== '') return candidate;
    }
  } catch {
    // Not JSON: the text itself is the message.
  }
  return text.slice(0, 500);
}

const MAX_RETRY_AFTER_MS = 60_000;

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date; ignored past a minute. */
export function retryAfterMs(headers: Headers, now: number): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return Math.min(ms, MAX_RETRY_AFTER_MS);
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  const wait = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(wait) || wait < 0 || wait > MAX_RETRY_AFTER_MS) return undefined;
  return wait;
}

/**
 * POSTs JSON and reads the answer within `timeoutMs`. `signal` cancels it (the caller no longer
 * needs the answer); a cancelled attempt is reported as such, not as a failure of the server.
 */
export async function postJson(url: string, body: unknown, timeoutMs: number, signal: AbortSignal): Promise<Attempt> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const cancel = () => controller.abort();
  if (signal.aborted) cancel();
  else signal.addEventListener('abort', cancel, { once: true });
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    const text = await response.text();
    if (!response.ok) {
      const retryAfter = retryAfterMs(response.headers, Date.now());
      return {
        kind: 'status',
        status: response.status,
        message: errorMessage(text),
        ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
      };
    }
    try {
      return { kind: 'ok', body: JSON.parse(text) as unknown };
    } catch {
      return { kind: 'not_json', message: `status ${response.status} with a body that is not JSON: ${text.slice(0, 200)}` };
    }
  } catch (error) {
    if (timedOut) return { kind: 'timeout' };
    if (signal.aborted) return { kind: 'cancelled' };
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { kind: 'network', message: cause?.code ?? cause?.message ?? (error as Error).message };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', cancel);
  }
}
