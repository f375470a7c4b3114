import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddingCache, EmbeddingsClient, EmbeddingsError, embeddingsConfigSection, resolveEmbeddingsEndpoint, type EmbeddingsEndpoint } from '../../services/embeddings';
import { ConfigError, parseConfig } from '../../services/config';
import { bagOfWords, FakeEmbeddingsServer } from '../fakes/fake-embeddings-server';

/** The embeddings client against a real HTTP server speaking the OpenAI wire format, with a real SQLite cache. */
describe('EmbeddingsClient', () => {
  let server: FakeEmbeddingsServer;
  let url: string;
  let dir: string;
  let cache: EmbeddingCache;
  beforeEach(async () => {
    server = new FakeEmbeddingsServer({ dims: 64 });
    url = await server.start();
    dir = mkdtempSync(join(tmpdir(), 'verdict-embed-'));
    cache = new EmbeddingCache(join(dir, 'cache', 'embeddings.sqlite'));
  });
  afterEach(async () => {
    cache.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const endpoint = (over: Partial<EmbeddingsEndpoint> = {}): EmbeddingsEndpoint => {
    const resolved = resolveEmbeddingsEndpoint(embeddingsConfigSection.parse({ endpoints: { default: { url, model: 'fake-embed', backoff: { initialMs: 1, maxMs: 5, jitter: 0 } } } }), 'default', {});
    if (!resolved.ok) throw new Error(resolved.errors.join('; '));
    return { ...resolved.endpoint, ...over };
  };

  it('sends batches of batchSize with at most maxConcurrency in flight, returns vectors in input order, and asks for each text once', async () => {
    const slow = new FakeEmbeddingsServer({ dims: 64, replyDelayMs: 30 });
    const slowUrl = await slow.start();
    try {
      const client = new EmbeddingsClient(endpoint({ url: slowUrl, batchSize: 3, maxConcurrency: 2 }), cache);
      const texts = Array.from({ length: 20 }, (_, i) => `problem number ${i} about primes`);
      const vectors = await client.embed([...texts, texts[0]!]);
      expect(vectors).toHaveLength(21);
      vectors.slice(0, 20).forEach((v, i) => expect(Array.from(v)).toEqual(Array.from(Float32Array.from(bagOfWords(texts[i]!, 64)))));
      expect(Array.from(vectors[20]!)).toEqual(Array.from(vectors[0]!));
      expect(slow.requests.map((r) => r.input.length)).toEqual([3, 3, 3, 3, 3, 3, 2]);
      expect(slow.peakInFlight).toBeLessThanOrEqual(2);
      expect(slow.requests.every((r) => r.body['encoding_format'] === 'float' && r.body['model'] === 'fake-embed')).toBe(true);
      expect(client.dimensions).toBe(64);
    } finally {
      await slow.close();
    }
  });

  it('answers from the SQLite cache across clients and processes, keyed by model and text', async () => {
    await new EmbeddingsClient(endpoint(), cache).embed(['alpha beta', 'gamma delta']);
    expect(server.requests).toHaveLength(1);
    cache.close();
    cache = new EmbeddingCache(join(dir, 'cache', 'embeddings.sqlite'));
    const counts: Array<{ cached: number; embedded: number }> = [];
    const again = await new EmbeddingsClient(endpoint(), cache).embed(['gamma delta', 'alpha beta', 'new text here'], (p) => counts.push({ ...p }));
    expect(server.texts).toEqual(['alpha beta', 'gamma delta', 'new text here']);
    expect(counts.at(-1)).toEqual({ cached: 2, embedded: 1 });
    expect(Array.from(again[1]!)).toEqual(Array.from(Float32Array.from(bagOfWords('alpha beta', 64))));
    // Another model is another key: its vectors are asked for anew.
    const other = new FakeEmbeddingsServer({ model: 'other-embed', dims: 64 });
    const otherUrl = await other.start();
    try {
      await new EmbeddingsClient(endpoint({ url: otherUrl, model: 'other-embed' }), cache).embed(['alpha beta']);
      expect(other.texts).toEqual(['alpha beta']);
      expect(cache.size('fake-embed')).toBe(3);
      expect(cache.size('other-embed')).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('retries a 429 after its Retry-After, 5xx in the flat SGLang shape, a reset connection, a short reply and a reply slower than attemptTimeoutMs', async () => {
    server.faults.push(
      { kind: 'status', status: 429, headers: { 'retry-after': '0' }, message: 'rate limited' },
      { kind: 'status', status: 503, shape: 'flat', message: 'The request queue is full.' },
      { kind: 'reset' },
      { kind: 'short' },
      { kind: 'slow', delayMs: 6_000 },
    );
    const client = new EmbeddingsClient(endpoint({ attemptTimeoutMs: 2_000, maxAttempts: 10 }), cache);
    const [v] = await client.embed(['one two three']);
    expect(v).toHaveLength(64);
    // Every fault cost one attempt (a reply slowed by load could cost another, never fewer).
    expect(server.requests.length).toBeGreaterThanOrEqual(6);
    expect(server.faults).toEqual([]);
  });

  it('waits what Retry-After asks (retry-after-ms) before the next attempt', async () => {
    server.faults.push({ kind: 'status', status: 429, headers: { 'retry-after-ms': '400' } });
    const times: number[] = [];
    server.onRequest = () => times.push(performance.now());
    await new EmbeddingsClient(endpoint(), cache).embed(['x y z']);
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(350);
  });

  it('stops at once on vectors of the wrong size, naming the endpoint and both sizes, and caches nothing of that batch', async () => {
    server.faults.push({ kind: 'dims', dims: 32 });
    const client = new EmbeddingsClient(endpoint({ dimensions: 64 }), cache);
    const error = await client.embed(['a b c']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingsError);
    expect((error as EmbeddingsError).kind).toBe('wrong_dimensions');
    expect((error as Error).message).toMatch(/embeddings endpoint default .*32 dimensions, expected 64/);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body['dimensions']).toBe(64);
    expect(cache.size()).toBe(0);
  });

  it('a vector size that changes between replies is refused too (the first reply sets it)', async () => {
    const client = new EmbeddingsClient(endpoint(), cache);
    await client.embed(['first text']);
    server.faults.push({ kind: 'dims', dims: 16 });
    await expect(client.embed(['second text'])).rejects.toThrow(/16 dimensions, expected 64/);
  });

  it('does not retry a 4xx refusal (an unknown model), and gives up after maxAttempts of 5xx', async () => {
    const wrong = new EmbeddingsClient(endpoint({ model: 'no-such-model' }), cache);
    await expect(wrong.embed(['a'])).rejects.toMatchObject({ kind: 'rejected', attempts: 1 });
    expect(server.requests).toHaveLength(0);
    for (let i = 0; i < 3; i++) server.faults.push({ kind: 'status', status: 500 });
    await expect(new EmbeddingsClient(endpoint({ maxAttempts: 3 }), cache).embed(['b'])).rejects.toMatchObject({ kind: 'server_error', attempts: 3 });
    expect(server.requests).toHaveLength(3);
  });

  it('config: the endpoint from the file, else from the environment; missing keys are named', () => {
    const none = resolveEmbeddingsEndpoint(undefined, 'default', {});
    expect(none).toEqual({ ok: false, errors: ['embeddings.endpoints.default.url: required (or set VERDICT_EMBEDDINGS_DEFAULT_URL)', 'embeddings.endpoints.default.model: required (or set VERDICT_EMBEDDINGS_DEFAULT_MODEL)'] });
    const env = resolveEmbeddingsEndpoint(undefined, 'default', { VERDICT_EMBEDDINGS_DEFAULT_URL: 'http://e:8000/v1', VERDICT_EMBEDDINGS_DEFAULT_MODEL: 'm' });
    expect(env.ok && env.endpoint).toMatchObject({ url: 'http://e:8000/v1', model: 'm', batchSize: 64, maxConcurrency: 8, apiKey: 'EMPTY' });
    let problems: readonly string[] = [];
    try {
      parseConfig({ embeddings: { endpoints: { default: { batchSize: 0, url: 'nope' }, Bad: {} } } }, 'verdict.yaml');
    } catch (error) {
      if (error instanceof ConfigError) problems = error.problems;
    }
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/^verdict\.yaml\.embeddings\.endpoints\.default\.batchSize: /), expect.stringMatching(/^verdict\.yaml\.embeddings\.endpoints\.default\.url: /), expect.stringMatching(/^verdict\.yaml\.embeddings\.endpoints\.Bad: /)]));
    const parsed = parseConfig({ embeddings: { cachePath: '/tmp/x.sqlite', endpoints: { default: { url: 'http://e:8000/v1', model: 'm', dimensions: 1024 } } } });
    expect(resolveEmbeddingsEndpoint(parsed.embeddings, 'default', {})).toMatchObject({ ok: true, endpoint: { dimensions: 1024, batchSize: 64 } });
  });
});
