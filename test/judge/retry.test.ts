import { backoffDelay, retryAfterMs } from '../../services/judge/retry';
import { ConcurrencyLimit } from '../../services/judge/limiter';
import { replyText } from '../../services/judge/reply';
import { resolveEndpoints, judgeConfigSection } from '../../services/judge/config';
import { parseConfig } from '../../services/config';

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

describe('concurrency limit', () => {
  it('hands slots over in FIFO order and drops aborted waiters', async () => {
    const limit = new ConcurrencyLimit(1);
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
    const section = judgeConfigSection.parse({ endpoints: { search: {}, if: { baseUrl: 'http://if:8000/v1', model: 'm' } } });
    const env = {
      VERDICT_JUDGE_SEARCH_BASE_URL: 'http://search:8000/v1',
      VERDICT_JUDGE_SEARCH_MODEL: 'Qwen/Qwen3-32B',
      VERDICT_JUDGE_SEARCH_API_KEY: 'sk-env',
    };
    const resolved = resolveEndpoints(section, env);
    expect(resolved.ok && resolved.endpoints.map((e) => [e.name, e.baseUrl, e.model, e.apiKey])).toEqual([
      ['search', 'http://search:8000/v1', 'Qwen/Qwen3-32B', 'sk-env'],
      ['if', 'http://if:8000/v1', 'm', 'EMPTY'],
    ]);
    expect(resolveEndpoints(section, {})).toEqual({
      ok: false,
      error: 'judge.endpoints.search.baseUrl: required (or set VERDICT_JUDGE_SEARCH_BASE_URL)',
    });
  });

  it('validates the section in the config file with field paths', () => {
    expect(() => parseConfig({ judge: { endpoints: { search: { maxConcurrency: 0 } } } })).toThrow(
      /config\.judge\.endpoints\.search\.maxConcurrency/,
    );
    expect(parseConfig({ judge: { endpoints: { search: {} } } }).judge?.endpoints['search']?.maxAttempts).toBe(4);
  });
});
