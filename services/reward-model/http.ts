import { errorMessage, retryAfterMs } from '../resilience/retry';

/** One HTTP attempt's result, as data: the retry policy decides from it, nothing is thrown. */
export type Attempt =
  | { kind: 'ok'; body: unknown }
  | { kind: 'status'; status: number; message: string; retryAfterMs?: number }
  | { kind: 'not_json'; message: string }
  | { kind: 'network'; message: string }
  | { kind: 'timeout' }
  | { kind: 'cancelled' };

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
