import { JudgeCache } from '../../services/judge/cache';
import { judgeAborted } from '../../core/ports/judge';
import { counterValue, gradeRequest, rig, type Rig } from './harness';

describe('judge client against a fake OpenAI-compatible server', () => {
  let r: Rig;
  beforeEach(async () => {
    r = await rig();
  });
  afterEach(async () => {
    await r.close();
  });

  it('sends the chat-completions body with a strict json_schema and validates the reply', async () => {
    const result = await r.client().judge(gradeRequest('Paris'));
    expect(result).toEqual({ ok: true, value: { reasoning: 'exact match', score: 1 }, source: 'judge', attempts: 1 });
    const sent = r.server.requests[0]!;
    expect(sent.body['model']).toBe('Qwen/Qwen3-32B');
    expect(sent.body['temperature']).toBe(0);
    expect(sent.body['max_tokens']).toBe(256);
    expect(sent.body['response_format']).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'answer_grade',
        strict: true,
        schema: {
          type: 'object',
          properties: { reasoning: { type: 'string' }, score: { type: 'number', minimum: 0, maximum: 1 } },
          required: ['reasoning', 'score'],
          additionalProperties: false,
        },
      },
    });
    expect(sent.headers['authorization']).toBe('Bearer test-key');
  });

  it('sends extra body fields such as chat_template_kwargs', async () => {
    await r.client({ extraBody: { chat_template_kwargs: { enable_thinking: false } } }).judge(gradeRequest('Paris'));
    expect(r.server.requests[0]!.body['chat_template_kwargs']).toEqual({ enable_thinking: false });
  });

  it('retries a 429, waiting at least its Retry-After, then succeeds', async () => {
    r.server.faults.push({ kind: 'status', status: 429, headers: { 'retry-after-ms': '150' } });
    const result = await r.client().judge(gradeRequest('Paris'));
    expect(result.ok && result.value.score).toBe(1);
    expect(result.attempts).toBe(2);
    expect(r.server.calls).toBe(2);
    expect(r.server.arrivals[1]! - r.server.arrivals[0]!).toBeGreaterThanOrEqual(140);
    expect(await counterValue(r.registry, 'verdict_judge_retries_total', { endpoint: 'search', kind: 'rate_limited' })).toBe(1);
    expect(await counterValue(r.registry, 'verdict_judge_requests_total', { result: 'rate_limited' })).toBe(1);
    expect(await counterValue(r.registry, 'verdict_judge_requests_total', { result: 'ok' })).toBe(1);
  });

  it('retries 500s in both vLLM error shapes and a connection reset, then succeeds', async () => {
    r.server.faults.push(
      { kind: 'status', status: 500, shape: 'flat' },
      { kind: 'status', status: 503, shape: 'nested' },
      { kind: 'reset' },
    );
    const result = await r.client({ maxAttempts: 4 }).judge(gradeRequest('Paris'));
    expect(result).toMatchObject({ ok: true, attempts: 4 });
    expect(await counterValue(r.registry, 'verdict_judge_retries_total', { kind: 'server_error' })).toBe(2);
    expect(await counterValue(r.registry, 'verdict_judge_retries_total', { kind: 'connection' })).toBe(1);
  });

  it('gives up after maxAttempts, keeping the flat vLLM error message, and the outcome is ABORTED', async () => {
    for (let i = 0; i < 3; i++) r.server.faults.push({ kind: 'status', status: 500, shape: 'flat', message: 'engine dead' });
    const result = await r.client({ maxAttempts: 3 }).judge(gradeRequest('Paris'));
    expect(result).toMatchObject({ ok: false, kind: 'server_error', attempts: 3 });
    expect(!result.ok && result.message).toContain('engine dead');
    expect(r.server.calls).toBe(3);
    expect(await counterValue(r.registry, 'verdict_judge_failures_total', { kind: 'server_error' })).toBe(1);
    if (result.ok) throw new Error('expected a failure');
    const outcome = judgeAborted(result);
    expect(outcome.status).toBe('ABORTED');
    expect(outcome.reason).toBe('judge_server_error');
    expect('reward' in outcome).toBe(false);
  });

  it('does not retry a 400: the request itself is wrong', async () => {
    r.server.faults.push({ kind: 'status', status: 400, message: 'maximum context length is 32768 tokens' });
    const result = await r.client().judge(gradeRequest('Paris'));
    expect(result).toMatchObject({ ok: false, kind: 'rejected', attempts: 1 });
    expect(r.server.calls).toBe(1);
  });

  it('retries malformed JSON and schema-violating JSON, then reports judge_malformed', async () => {
    r.server.faults.push({ kind: 'malformed' }, { kind: 'schema_violation' }, { kind: 'malformed' });
    const result = await r.client({ maxAttempts: 3 }).judge(gradeRequest('Paris'));
    expect(result).toMatchObject({ ok: false, kind: 'malformed', attempts: 3 });
    expect(await counterValue(r.registry, 'verdict_judge_retries_total', { kind: 'malformed' })).toBe(2);
    if (!result.ok) expect(judgeAborted(result).reason).toBe('judge_malformed');
  });

  it('recovers when a schema violation is followed by a good reply', async () => {
    r.server.faults.push({ kind: 'schema_violation' });
    const result = await r.client().judge(gradeRequest('Rome'));
    expect(result).toMatchObject({ ok: true, value: { score: 0 }, attempts: 2 });
  });

  it('reads the verdict from content, ignoring reasoning_content and <think> text', async () => {
    r.server.faults.push({ kind: 'think' });
    const result = await r.client().judge(gradeRequest('Paris'));
    expect(result).toMatchObject({ ok: true, value: { score: 1 }, attempts: 1 });
  });

  it('times out a slow attempt, retries, and succeeds', async () => {
    r.server.faults.push({ kind: 'slow', delayMs: 2_000 });
    const result = await r.client({ attemptTimeoutMs: 100, deadlineMs: 3_000 }).judge(gradeRequest('Paris'));
    expect(result).toMatchObject({ ok: true, attempts: 2 });
    expect(await counterValue(r.registry, 'verdict_judge_retries_total', { kind: 'timeout' })).toBe(1);
  });

  it('stops at the per-call deadline when replies are slower than it', async () => {
    for (let i = 0; i < 3; i++) r.server.faults.push({ kind: 'slow', delayMs: 2_000 });
    const result = await r.client({ attemptTimeoutMs: 1_000, deadlineMs: 150 }).judge(gradeRequest('Paris'));
    expect(result).toMatchObject({ ok: false, kind: 'deadline', attempts: 1 });
  });

  it('answers a re-run from the persistent cache without calling the server', async () => {
    const first = await r.client().judge(gradeRequest('Paris'));
    expect(first).toMatchObject({ ok: true, source: 'judge' });
    r.caches.forEach((c) => c.close());
    // A new client on the same file, as after a restart.
    const again = await r.client().judge(gradeRequest('Paris'));
    expect(again).toEqual({ ok: true, value: { reasoning: 'exact match', score: 1 }, source: 'cache', attempts: 0 });
    expect(r.server.calls).toBe(1);
    expect(await counterValue(r.registry, 'verdict_judge_cache_hits_total', { source: 'sqlite' })).toBe(1);
    // A different answer is a different key.
    await r.client().judge(gradeRequest('Rome'));
    expect(r.server.calls).toBe(2);
  });

  it('does not cache failures', async () => {
    r.server.faults.push({ kind: 'status', status: 400 });
    const client = r.client();
    expect((await client.judge(gradeRequest('Paris'))).ok).toBe(false);
    expect((await client.judge(gradeRequest('Paris'))).ok).toBe(true);
    expect(r.server.calls).toBe(2);
  });

  it('keys the cache on sampling parameters too', async () => {
    const cache = new JudgeCache(':memory:');
    await r.client({}, cache).judge(gradeRequest('Paris'));
    await r.client({ temperature: 0.6 }, cache).judge(gradeRequest('Paris'));
    await r.client({}, cache).judge(gradeRequest('Paris'));
    expect(r.server.calls).toBe(2);
    cache.close();
  });

  it('holds the concurrency limit per endpoint', async () => {
    r.server.replyDelayMs = 20;
    const client = r.client({ maxConcurrency: 4 });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => client.judge(gradeRequest(`answer ${i}`))));
    expect(results.every((x) => x.ok)).toBe(true);
    expect(r.server.calls).toBe(40);
    expect(r.server.peakConcurrency).toBe(4);
  });

  it('shares one request among identical calls in flight', async () => {
    r.server.replyDelayMs = 20;
    const client = r.client();
    const results = await Promise.all(Array.from({ length: 8 }, () => client.judge(gradeRequest('Paris'))));
    expect(r.server.calls).toBe(1);
    expect(results.filter((x) => x.ok && x.source === 'shared')).toHaveLength(7);
    expect(await counterValue(r.registry, 'verdict_judge_cache_hits_total', { source: 'inflight' })).toBe(7);
  });

  it('reports cancellation, not a verdict, when the caller aborts', async () => {
    r.server.replyDelayMs = 2_000;
    const controller = new AbortController();
    const pending = r.client().judge(gradeRequest('Paris'), { signal: controller.signal });
    setTimeout(() => controller.abort('deadline'), 30);
    expect(await pending).toMatchObject({ ok: false, kind: 'cancelled' });
  });

  it('refuses an unknown model with a 404, not retried', async () => {
    const result = await r.client({ model: 'not-served' }).judge(gradeRequest('Paris'));
    expect(result).toMatchObject({ ok: false, kind: 'rejected', attempts: 1 });
    expect(!result.ok && result.message).toContain('does not exist');
  });
});
