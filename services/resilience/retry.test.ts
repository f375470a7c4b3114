import { backoffDelay, errorMessage, parseErrorBody, retryAfterMs, retryWait } from './retry';
import { Semaphore } from './semaphore';
import { replyText } from '../judge/reply';
import { resolveEndpoints, judgeConfigSection } from '../judge/config';
import { parseConfig } from '../config';

describe('retry policy', () => {
  const policy = { initialMs: 100, maxMs: 800, jitter: 0.25 };

  it('doubles up to the cap, taking off at most the jitter fraction', () => {
    const expected = [100, 200, 400, 800, 800];
    expected.forEach((base, retry) => {
      const delay = backoffDelay(policy, retry, 'key');
      expect(delay).toBeLessThanOrEqual(base);
      expect(delay).toBeGreaterThanOrEqual(base * 0.75);
    });
  });

  it('jitters by request key, reproducibly', () => {
    expect(backoffDelay(policy, 1, 'a')).toBe(backoffDelay(policy, 1, 'a'));
    const spread = new Set(['a', 'b', 'c', 'd'].map((k) => backoffDelay(policy, 1, k)));
    expect(spread.size).toBeGreaterThan(1);
  });

  it('reads retry-after-ms, retry-after seconds and HTTP dates', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({}), now)).toBeUndefined();
  });
});

describe('semaphore', () => {
  it('hands slots over in FIFO order and drops aborted waiters', async () => {
    const limit = new Semaphore(1);
    const first = await limit.acquire();
    const order: string[] = [];
    const controller = new AbortController();
    const b = limit.acquire(controller.signal).then((rel) => (order.push(rel ? 'b' : 'b-aborted'), rel?.()));
    const c = limit.acquire().then((rel) => (order.push('c'), rel?.()));
    controller.abort();
    first!();
    await Promise.all([b, c]);
    expect(order).toEqual(['b-aborted', 'c']);
    expect(limit.inFlight).toBe(0);
  });
});

describe('reply text', () => {
  it('strips think blocks and json fences', () => {
    expect(replyText('<think>{"x":1}</think>\n{"y":2}')).toBe('{"y":2}');
    expect(replyText('```json\n{"y":2}\n```')).toBe('{"y":2}');
  });
});

describe('judge config', () => {
  it('fills url, model and key from the environment and names missing keys', () => {
    const section = judgeConfigSection.parse({ endpoints: { search: {}, if: { url: 'http://if:8000/v1', model: 'm' } } });
    const env = {
      VERDICT_JUDGE_SEARCH_URL: 'http://search:8000/v1',
      VERDICT_JUDGE_SEARCH_MODEL: 'Qwen/Qwen3-32B',
      VERDICT_JUDGE_SEARCH_API_KEY: 'sk-env',
    };
    const resolved = resolveEndpoints(section, env);
    expect(resolved.ok && resolved.endpoints.map((e) => [e.name, e.url, e.model, e.apiKey])).toEqual([
      ['search', 'http://search:8000/v1', 'Qwen/Qwen3-32B', 'sk-env'],
      ['if', 'http://if:8000/v1', 'm', 'EMPTY'],
    ]);
    expect(resolveEndpoints(section, {})).toEqual({
      ok: false,
      errors: ['judge.endpoints.search.url: required (or set VERDICT_JUDGE_SEARCH_URL)', 'judge.endpoints.search.model: required (or set VERDICT_JUDGE_SEARCH_MODEL)'],
    });
  });

  it('validates the section in the config file with field paths', () => {
    expect(() => parseConfig({ judge: { endpoints: { search: { maxConcurrency: 0 } } } })).toThrow(
      /config\.judge\.endpoints\.search\.maxConcurrency/,
    );
    expect(parseConfig({ judge: { endpoints: { search: {} } } }).judge?.endpoints['search']?.maxAttempts).toBe(4);
  });
});

describe('retry wait', () => {
  const policy = { maxAttempts: 4, attemptTimeoutMs: 1_000, deadlineMs: 10_000, backoff: { initialMs: 100, maxMs: 800, jitter: 0 }, maxRetryAfterMs: 5_000 };

  it("takes the server's Retry-After over the backoff, capped by maxRetryAfterMs", () => {
    expect(retryWait(policy, 0, 'k', 250)).toBe(250);
    expect(retryWait(policy, 0, 'k', 3_600_000)).toBe(5_000);
    expect(retryWait(policy, 2, 'k', undefined)).toBe(400);
  });
});

describe('error bodies', () => {
  it('reads the nested, flat (vLLM/SGLang) and FastAPI shapes, and nothing else', () => {
    expect(parseErrorBody('{"error":{"message":"too long","type":"BadRequestError","code":400}}')).toMatchObject({ message: 'too long', code: 400, flat: false });
    expect(parseErrorBody('{"object":"error","message":"queue full","type":"x","param":null,"code":503}')).toMatchObject({ message: 'queue full', flat: true });
    expect(errorMessage('{"detail":"Not Found"}')).toBe('Not Found');
    expect(errorMessage('<html>bad gateway</html>')).toBe('<html>bad gateway</html>');
    expect(parseErrorBody('[1,2]')).toBeUndefined();
  });
});

describe('semaphore under a batch-wide signal', () => {
  it('lets thousands of waiters share one abort listener and frees none of their slots', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const limit = new Semaphore(2);
    const held = [await limit.acquire(), await limit.acquire()];
    const controller = new AbortController();
    const waiters = Array.from({ length: 5_000 }, () => limit.acquire(controller.signal));
    expect(limit.waiting).toBe(5_000);
    controller.abort('deadline');
    expect((await Promise.all(waiters)).every((r) => r === null)).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings.map((w) => w.message)).toEqual([]);
    expect(limit.waiting).toBe(0);
    const late = limit.acquire();
    held[0]!();
    expect(await late).not.toBeNull();
    expect(limit.inFlight).toBe(2);
  });
});

describe('semaphore without waiting', () => {
  it('tryAcquire takes a free slot, and none while one is held by all or someone queues', async () => {
    const limit = new Semaphore(1);
    const first = limit.tryAcquire();
    expect(first).not.toBeNull();
    expect(limit.tryAcquire()).toBeNull();
    const queued = limit.acquire();
    first!();
    const second = await queued;
    expect(limit.tryAcquire()).toBeNull();
    second!();
    expect(limit.tryAcquire()).not.toBeNull();
  });
});
