import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fakeLogit } from '../fakes/fake-reward-model';
import { FakeSglangServer } from '../fakes/fake-sglang-server';
import { FakeVllmServer } from '../fakes/fake-vllm-server';
import { chat, endpoint, QWEN3_TEMPLATE, sentTexts } from './harness';

let sglang: FakeSglangServer;
let vllm: FakeVllmServer;
let vllmPrevious: FakeVllmServer;
let urls: { sglang: string; vllm: string; vllmPrevious: string };

beforeAll(async () => {
  sglang = new FakeSglangServer();
  vllm = new FakeVllmServer({ chatTemplate: QWEN3_TEMPLATE });
  vllmPrevious = new FakeVllmServer({ api: 'previous', chatTemplate: QWEN3_TEMPLATE });
  urls = { sglang: await sglang.listen(), vllm: await vllm.listen(), vllmPrevious: await vllmPrevious.listen() };
});
afterAll(async () => {
  await Promise.all([sglang.close(), vllm.close(), vllmPrevious.close()]);
});

/** Every configuration that must agree: both servers, both vLLM routes, API forms and input forms. */
const CONFIGS = () => ({
  'sglang /classify text': endpoint({ server: 'sglang', url: urls.sglang }),
  'vllm current /classify messages': endpoint({ server: 'vllm', url: urls.vllm }),
  'vllm current /classify text': endpoint({ server: 'vllm', url: urls.vllm, input: 'text' }),
  'vllm current /pooling messages': endpoint({ server: 'vllm', url: urls.vllm, route: 'pooling' }),
  'vllm current /pooling text': endpoint({ server: 'vllm', url: urls.vllm, route: 'pooling', input: 'text' }),
  'vllm previous /classify messages': endpoint({ server: 'vllm', url: urls.vllmPrevious, api: 'previous' }),
  'vllm previous /pooling text': endpoint({ server: 'vllm', url: urls.vllmPrevious, api: 'previous', route: 'pooling', input: 'text' }),
});

/** Resolves once `condition` holds, checking every few milliseconds. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('reward-model client: SGLang and vLLM agree', () => {
  const conversations = [
    chat('What is 2+2?', '4'),
    chat('What is 2+2?', '5'),
    [{ role: 'system', content: 'You are terse.' }, ...chat('Name a prime.', 'Two.')],
    chat('Traduis « bonjour » en japonais.', 'こんにちは (konnichiwa).'),
  ];
  // What Qwen3's template makes of the first conversation, written out by hand.
  const firstText = '<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n4<|im_end|>\n';

  it('gives the same raw score for the same conversations on every server, route and API form', async () => {
    const expected = fakeLogit(firstText);
    for (const [name, rm] of Object.entries(CONFIGS())) {
      const scores = await Promise.all(conversations.map((c) => rm.score(c)));
      const values = scores.map((s) => (s.ok ? s.score : s.message));
      expect({ name, first: values[0] }).toEqual({ name, first: expected });
      expect({ name, values }).toEqual({ name, values: [expected, ...values.slice(1)] });
      expect(new Set(values).size).toBe(conversations.length);
    }
    const reference = await Promise.all(conversations.map((c) => CONFIGS()['sglang /classify text'].score(c)));
    for (const rm of Object.values(CONFIGS())) {
      expect(await Promise.all(conversations.map((c) => rm.score(c)))).toEqual(
        reference.map((r) => ({ ...r, attempts: 1 })),
      );
    }
  });

  it('passes raw logits through unchanged (no sigmoid, no softmax), including negative, zero and large', async () => {
    for (const [name, rm] of Object.entries(CONFIGS())) {
      for (const logit of [23.125, -3.8125, 0, 1234.5]) {
        const result = await rm.score(chat('q', `answer [[rm:${logit}]]`));
        expect({ name, result }).toEqual({ name, result: { ok: true, score: logit, attempts: 1 } });
      }
    }
  });

  it('sends the activation-off flag under the name of the configured vLLM API, and only that one', async () => {
    const before = { current: vllm.requests.length, previous: vllmPrevious.requests.length };
    await endpoint({ server: 'vllm', url: urls.vllm }).score(chat('q', 'a'));
    await endpoint({ server: 'vllm', url: urls.vllmPrevious, api: 'previous' }).score(chat('q', 'a'));
    const current = vllm.requests[before.current]!.body as Record<string, unknown>;
    const previous = vllmPrevious.requests[before.previous]!.body as Record<string, unknown>;
    expect(current).toMatchObject({ use_activation: false, model: 'Skywork/Skywork-Reward-V2-Qwen3-8B' });
    expect(current).not.toHaveProperty('activation');
    expect(previous).toMatchObject({ activation: false });
    expect(previous).not.toHaveProperty('use_activation');
  });

  it('would get a sigmoid, not the logit, if the API form were wrong (why the config must match the server)', async () => {
    const mismatched = endpoint({ server: 'vllm', url: urls.vllm, api: 'previous' });
    const result = await mismatched.score(chat('q', 'answer [[rm:2]]'));
    expect(result).toMatchObject({ ok: true });
    expect(result.ok && result.score).toBeCloseTo(1 / (1 + Math.exp(-2)), 12);
  });

  it('uses SGLang native /classify, never /v1/classify (a softmax over one label)', () => {
    expect(sglang.requests.length).toBeGreaterThan(0);
    expect(new Set(sglang.requests.map((r) => r.path))).toEqual(new Set(['/classify']));
  });

  it('strips a leading BOS from templated text, since the server adds it when tokenizing', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'verdict-bos-'));
    try {
      const file = path.join(dir, 'llama-like.jinja');
      writeFileSync(file, '{{ bos_token }}{% for m in messages %}<{{ m.role }}>{{ m.content }}</{{ m.role }}>{% endfor %}');
      const before = sglang.requests.length;
      await endpoint({ server: 'sglang', url: urls.sglang, chatTemplate: file, bosToken: '<s>' }).score(chat('q', 'a'));
      expect(sentTexts(sglang.requests.slice(before))).toEqual([['<user>q</user><assistant>a</assistant>']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads vLLM results by index, not by position', async () => {
    const reversed = new FakeVllmServer({ reverseData: true });
    const rm = endpoint({ server: 'vllm', url: await reversed.listen(), input: 'text', maxBatch: 4 });
    const scores = await Promise.all([1, 2, 3, 4].map((n) => rm.score(chat('q', `[[rm:${n}]]`))));
    await reversed.close();
    expect(scores.map((s) => s.ok && s.score)).toEqual([1, 2, 3, 4]);
    expect(sentTexts(reversed.requests).map((t) => t.length)).toEqual([4]);
  });
});

describe('reward-model client: batching', () => {
  it('never sends more than maxBatch conversations in one request, and fills batches under load', async () => {
    const server = new FakeSglangServer();
    const rm = endpoint({ server: 'sglang', url: await server.listen(), maxBatch: 8, maxConcurrency: 2 });
    const scores = await Promise.all(Array.from({ length: 50 }, (_, i) => rm.score(chat('q', `[[rm:${i}]]`))));
    await server.close();
    expect(scores.map((s) => s.ok && s.score)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    const sizes = sentTexts(server.requests).map((t) => t.length);
    expect(Math.max(...sizes)).toBe(8);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(50);
    expect(sizes).toHaveLength(7);
  });

  it('keeps at most `maxConcurrency` requests in flight', async () => {
    const server = new FakeSglangServer();
    server.latencyMs = 20;
    const rm = endpoint({ server: 'sglang', url: await server.listen(), maxBatch: 1, maxConcurrency: 3 });
    await Promise.all(Array.from({ length: 12 }, (_, i) => rm.score(chat('q', `${i}`))));
    await server.close();
    expect(server.requests).toHaveLength(12);
    expect(server.maxInFlight).toBe(3);
  });

  it('sends one conversation per chat-style vLLM request', async () => {
    const server = new FakeVllmServer({ chatTemplate: QWEN3_TEMPLATE });
    const rm = endpoint({ server: 'vllm', url: await server.listen(), maxConcurrency: 4 });
    await Promise.all(Array.from({ length: 10 }, (_, i) => rm.score(chat('q', `${i}`))));
    await server.close();
    expect(server.requests).toHaveLength(10);
    for (const r of server.requests) expect((r.body as { messages: unknown[] }).messages).toHaveLength(2);
  });
});

describe('reward-model client: failures', () => {
  let server: FakeVllmServer;
  let url: string;
  beforeEach(async () => {
    server = new FakeVllmServer({ chatTemplate: QWEN3_TEMPLATE, maxInputChars: 200 });
    url = await server.listen();
  });
  afterEach(() => server.close());

  it('retries 5xx and then succeeds', async () => {
    server.inject(FakeVllmServer.internalError(), 2);
    const result = await endpoint({ server: 'vllm', url, maxAttempts: 4 }).score(chat('q', '[[rm:7]]'));
    expect(result).toEqual({ ok: true, score: 7, attempts: 3 });
    expect(server.requests).toHaveLength(3);
  });

  it('is ABORTED as reward_model_unavailable once retries are spent, never a score', async () => {
    server.inject(FakeVllmServer.internalError(), 10);
    const result = await endpoint({ server: 'vllm', url, maxAttempts: 4 }).score(chat('q', '[[rm:7]]'));
    expect(result).toEqual({
      ok: false,
      reason: 'reward_model_unavailable',
      message: 'HTTP 500: Internal server error (after 4 attempts)',
      attempts: 4,
    });
    expect(server.requests).toHaveLength(4);
  });

  it('retries 429 (honouring retry-after-ms), SGLang 503 queue-full, dropped connections and stalls', async () => {
    server.inject(FakeVllmServer.rateLimited(5));
    server.inject({ kind: 'drop' });
    server.inject({ kind: 'stall' });
    // The attempt timeout must end the stall, yet never a healthy reply on a loaded machine (the
    // CI flake of issue 13 item 18 was a 200 ms timeout hit by the final, healthy attempt).
    const rm = endpoint({ server: 'vllm', url, maxAttempts: 4, attemptTimeoutMs: 2_000 });
    expect(await rm.score(chat('q', '[[rm:1.5]]'))).toEqual({ ok: true, score: 1.5, attempts: 4 });

    const sg = new FakeSglangServer();
    sg.inject(FakeSglangServer.queueFull(), 2);
    const result = await endpoint({ server: 'sglang', url: await sg.listen() }).score(chat('q', '[[rm:-2]]'));
    await sg.close();
    expect(result).toEqual({ ok: true, score: -2, attempts: 3 });
  });

  it('reports a stalled server as timed out after the retries', async () => {
    server.inject({ kind: 'stall' }, 3);
    const result = await endpoint({ server: 'vllm', url, maxAttempts: 2, attemptTimeoutMs: 100 }).score(chat('q', 'a'));
    expect(result).toEqual({ ok: false, reason: 'reward_model_unavailable', message: 'timed out (after 2 attempts)', attempts: 2 });
  });

  it('does not retry a 400; in a batch it isolates the bad conversation so the others still score', async () => {
    const rm = endpoint({ server: 'vllm', url, input: 'text', maxBatch: 8 });
    const results = await Promise.all([
      rm.score(chat('q', '[[rm:1]]')),
      rm.score(chat('q', 'x'.repeat(500))),
      rm.score(chat('q', '[[rm:3]]')),
    ]);
    expect(results[0]).toEqual({ ok: true, score: 1, attempts: 2 });
    expect(results[2]).toEqual({ ok: true, score: 3, attempts: 2 });
    expect(results[1]).toMatchObject({ ok: false, reason: 'reward_model_rejected', attempts: 2 });
    expect(!results[1]!.ok && results[1]!.message).toMatch(/^HTTP 400: This model's maximum context length is 200/);
    expect(sentTexts(server.requests).map((t) => t.length)).toEqual([3, 1, 1, 1]);
  });

  it('fails a whole batch at once on an endpoint error (404), without retrying one by one', async () => {
    server.inject({ kind: 'status', status: 404, body: { error: { message: 'The model `x` does not exist.', type: 'NotFoundError', param: null, code: 404 } } });
    const rm = endpoint({ server: 'vllm', url, input: 'text', maxBatch: 8 });
    const results = await Promise.all([1, 2, 3].map((n) => rm.score(chat('q', `${n}`))));
    for (const r of results) {
      expect(r).toEqual({ ok: false, reason: 'reward_model_rejected', message: 'HTTP 404: The model `x` does not exist.', attempts: 1 });
    }
    expect(server.requests).toHaveLength(1);
  });

  it('reads the message of the flat error envelope of older vLLM', async () => {
    const flat = new FakeVllmServer({ errorEnvelope: 'flat', maxInputChars: 10 });
    const result = await endpoint({ server: 'vllm', url: await flat.listen(), input: 'text' }).score(chat('q', 'long enough'));
    await flat.close();
    expect(result).toMatchObject({ ok: false, reason: 'reward_model_rejected' });
    expect(!result.ok && result.message).toMatch(/^HTTP 400: This model's maximum context length is 10 tokens/);
  });

  it.each([
    ['a body that is not JSON', 'Internal Server Error'],
    ['no data array', '{"object": "list"}'],
    ['too few results', '{"data": []}'],
    ['a 2-label head', '{"data": [{"index": 0, "probs": [0.1, 0.9], "num_classes": 2}]}'],
    ['a non-finite logit', '{"data": [{"index": 0, "probs": ["NaN"]}]}'],
  ])('is ABORTED as reward_model_malformed on %s, without retrying', async (_, body) => {
    server.inject({ kind: 'raw', body });
    const result = await endpoint({ server: 'vllm', url }).score(chat('q', 'a'));
    expect(result).toMatchObject({ ok: false, reason: 'reward_model_malformed', attempts: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('is ABORTED as reward_model_malformed when SGLang answers the wrong number of results', async () => {
    const sg = new FakeSglangServer();
    sg.inject({ kind: 'raw', body: '[{"embedding": [1.0], "meta_info": {}}]' });
    const rm = endpoint({ server: 'sglang', url: await sg.listen() });
    const results = await Promise.all([rm.score(chat('q', 'a')), rm.score(chat('q', 'b'))]);
    await sg.close();
    for (const r of results) expect(r).toMatchObject({ ok: false, reason: 'reward_model_malformed', message: 'expected 2 results, got 1' });
  });

  it('is ABORTED at the per-sample deadline, even while a request is in flight', async () => {
    server.inject({ kind: 'stall' });
    const result = await endpoint({ server: 'vllm', url, deadlineMs: 100, attemptTimeoutMs: 60_000 }).score(chat('q', 'a'));
    expect(result).toEqual({ ok: false, reason: 'reward_model_deadline', message: 'no score within 100 ms', attempts: 1 });
  });

  it('settles every job sharing one aborted signal, queued or in flight, through a single listener', async () => {
    server.inject({ kind: 'stall' }, 50);
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    const controller = new AbortController();
    const rm = endpoint({ server: 'vllm', url, maxConcurrency: 2 });
    const pending = Promise.all(Array.from({ length: 50 }, () => rm.score(chat('q', 'a'), controller.signal)));
    // Abort once both batches are at the server (not after a fixed time, which a loaded machine
    // may not have reached them by): one in flight per slot, the other 48 still queued.
    await until(() => server.requests.length === 2);
    controller.abort('shutdown');
    const results = await pending;
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(results.map((r) => !r.ok && r.reason)).toEqual(Array.from({ length: 50 }, () => 'shutdown'));
    expect(warnings.map((w) => w.message)).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  it("is ABORTED with the caller's reason when its signal aborts", async () => {
    server.inject({ kind: 'stall' });
    const controller = new AbortController();
    const pending = endpoint({ server: 'vllm', url }).score(chat('q', 'a'), controller.signal);
    setTimeout(() => controller.abort('deadline'), 20);
    expect(await pending).toMatchObject({ ok: false, reason: 'deadline' });
    const early = await endpoint({ server: 'vllm', url }).score(chat('q', 'a'), AbortSignal.abort('shutdown'));
    expect(early).toMatchObject({ ok: false, reason: 'shutdown', attempts: 0 });
  });
});
