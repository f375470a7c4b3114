import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { classifyError, nestFlatErrors, RETRYABLE } from './errors';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('classifyError', () => {
  it('names our own abort first, whatever the client reported', () => {
    expect(classifyError(new APIUserAbortError(), 'timeout', NOW)).toEqual({ kind: 'timeout', message: 'timeout: Request was aborted.' });
    expect(classifyError(new APIUserAbortError(), undefined, NOW)).toMatchObject({ kind: 'cancelled' });
  });

  it('maps the client\'s timeouts and connection failures, with the cause', () => {
    expect(classifyError(new APIConnectionTimeoutError(), undefined, NOW)).toMatchObject({ kind: 'timeout' });
    const refused = new APIConnectionError({ message: 'Connection error.', cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
    expect(classifyError(refused, undefined, NOW)).toEqual({ kind: 'connection', message: 'Connection error. (connect ECONNREFUSED 127.0.0.1:9)' });
  });

  it('maps an HTTP status to its kind, with the wait the server asked for', () => {
    const limited = new APIError(429, { message: 'slow down' }, 'slow down', new Headers({ 'retry-after': '2' }));
    expect(classifyError(limited, undefined, NOW)).toEqual({ kind: 'rate_limited', message: expect.any(String), retryAfterMs: 2000 });
    const dated = new APIError(503, undefined, 'busy', new Headers({ 'retry-after': new Date(NOW + 5000).toUTCString() }));
    expect(classifyError(dated, undefined, NOW)).toMatchObject({ kind: 'server_error', retryAfterMs: 5000 });
    expect(classifyError(new APIError(400, undefined, 'bad', new Headers()), undefined, NOW)).toEqual({ kind: 'rejected', message: expect.any(String) });
  });

  it('reads a body that is not JSON as malformed and anything else as a lost connection', () => {
    expect(classifyError(new SyntaxError('Unexpected token <'), undefined, NOW)).toEqual({ kind: 'malformed', message: 'response body: Unexpected token <' });
    expect(classifyError(new TypeError('terminated'), undefined, NOW)).toEqual({ kind: 'connection', message: 'terminated' });
  });

  it('retries what may pass next time and never a rejection or a cancel', () => {
    expect(['malformed', 'rate_limited', 'server_error', 'timeout', 'connection'].every((k) => RETRYABLE.has(k as never))).toBe(true);
    expect(RETRYABLE.has('rejected' as never)).toBe(false);
    expect(RETRYABLE.has('cancelled' as never)).toBe(false);
  });
});

describe('nestFlatErrors', () => {
  // The fetch it wraps answers with a fixed Response, as vLLM or SGLang would over HTTP.
  const answering = (response: Response): typeof fetch => async () => response;

  it('nests a flat vLLM/SGLang error body in the shape the openai client reads', async () => {
    const flat = JSON.stringify({ object: 'error', message: 'context too long', type: 'BadRequestError', param: null, code: 400 });
    const response = await nestFlatErrors(answering(new Response(flat, { status: 400, headers: { 'content-type': 'application/json', 'content-length': String(flat.length) } })))('http://x');
    expect(response.status).toBe(400);
    expect(response.headers.get('content-length')).toBeNull();
    expect(await response.json()).toEqual({ error: { message: 'context too long', type: 'BadRequestError', param: null, code: 400 } });
  });

  it('passes a nested error and a success through unchanged', async () => {
    const nested = JSON.stringify({ error: { message: 'nope' } });
    expect(await (await nestFlatErrors(answering(new Response(nested, { status: 500 })))('http://x')).text()).toBe(nested);
    const ok = new Response('{"choices":[]}', { status: 200 });
    expect(await nestFlatErrors(answering(ok))('http://x')).toBe(ok);
  });
});
