import { Engine, LARGE_BATCH, RequestRefused } from '../../services/engine/engine';
import { InlineExecutor, PoolExecutor, type Executor } from '../../services/pool/executor';
import { createRegistry, TEST_VERIFIERS } from '../fixtures/test-registry';
import { mixedQaBatch, sample } from '../fixtures/samples';
import { summarizeGroups } from '../../core/groups';

const registry = createRegistry();
const spinSamples = (n: number, ops: number) =>
  Array.from({ length: n }, (_, i) => sample({ id: `s${i}`, verifier: 'spin', label: { ops } }));

describe('engine', () => {
  let pool: Engine;
  beforeAll(() => {
    pool = new Engine({ registry, executor: new PoolExecutor(TEST_VERIFIERS, 2) });
  });
  afterAll(() => pool.close());

  it('gives every sample exactly one result, in input order, the same inline and on the pool', async () => {
    const batch = mixedQaBatch();
    const inline = new Engine({ registry, executor: new InlineExecutor(registry) });
    const [a, b] = await Promise.all([pool.score(batch), inline.score(batch)]);
    expect(a).toEqual(b);
    expect(a.map((r) => r.index)).toEqual(batch.map((_, i) => i));
    expect(a.map((r) => [r.id, r.status, r.reward, r.reason])).toEqual([
      ['a', 'OK', 1, 'correct_choice'],
      ['a', 'OK', 0, 'wrong_choice'],
      ['b', 'OK', 1, 'exact_match'],
      ['c', 'INVALID', undefined, 'label.answers[0]: expected a string'],
      ['d', 'INVALID', undefined, 'verifier: unknown verifier "nope" (known: ' + registry.names().join(', ') + ')'],
      ['e', 'OK', 0, 'no_answer'],
      ['f', 'INVALID', undefined, 'verifier: required'],
    ]);
    for (const r of a) expect('reward' in r).toBe(r.status === 'OK');
  });

  it("marks a large batch's chunks for a young-generation collection on their thread, and no smaller batch's; after one, an idle server's threads are asked for a full collection", async () => {
    const inline = new InlineExecutor(registry);
    const marks: boolean[] = [];
    const marking: Executor = {
      threads: 2,
      scoreChunk: (samples, signal, budgetMs, encode, collectYoung) => {
        marks.push(collectYoung === true);
        return inline.scoreChunk(samples, signal);
      },
      runTask: (...args) => inline.runTask(...args),
      queued: () => 0,
      collectThreads: () => void collections++,
      close: async () => undefined,
    };
    let collections = 0;
    const engine = new Engine({ registry, executor: marking });
    const batch = (n: number) => Array.from({ length: n }, (_, i) => sample({ id: `q${i}`, verifier: 'qa', response: '\\boxed{C}', label: { choice: 'C' } }));
    // Counted in chunks sent (8 of 512 samples for 4,096 with two threads; 32 for the large one).
    await engine.score(batch(4_096));
    await engine.score(batch(LARGE_BATCH - 1));
    expect(marks.length).toBe(8 + 32);
    expect(marks.filter(Boolean)).toHaveLength(0);
    // The idle server asks the threads for a full collection only after a large batch.
    expect(engine.collectThreadsAfterLarge()).toBe(false);
    marks.length = 0;
    const results = await engine.score(batch(LARGE_BATCH));
    expect(marks).toEqual(Array.from({ length: 32 }, () => true));
    expect(results.filter((r) => r.status === 'OK' && r.reward === 1)).toHaveLength(LARGE_BATCH);
    expect(engine.collectThreadsAfterLarge()).toBe(true);
    expect(engine.collectThreadsAfterLarge()).toBe(false);
    expect(collections).toBe(1);
    await engine.close();
  });

  it('sends a large batch to the pool a few chunks at a time (two per thread), and scores it as inline', async () => {
    const threads = new PoolExecutor(TEST_VERIFIERS, 2);
    let out = 0;
    let most = 0;
    let chunks = 0;
    // The real pool, counting the chunks that are out at once.
    const counting: Executor = {
      threads: threads.threads,
      scoreChunk: async (...args) => {
        chunks++;
        most = Math.max(most, ++out);
        try {
          return await threads.scoreChunk(...args);
        } finally {
          out--;
        }
      },
      runTask: (...args) => threads.runTask(...args),
      queued: () => threads.queued(),
      collectThreads: () => threads.collectThreads(),
      close: () => threads.close(),
    };
    const engine = new Engine({ registry, executor: counting });
    const batch = Array.from({ length: 300 }, () => mixedQaBatch()).flat();
    const inline = new Engine({ registry, executor: new InlineExecutor(registry) });
    try {
      const [a, b] = await Promise.all([engine.score(batch), inline.score(batch)]);
      expect(a).toEqual(b);
      expect(chunks).toBeGreaterThan(4);
      expect(most).toBe(4);
    } finally {
      await engine.close();
    }
  });

  it("lets a pool thread's event loop run between tasks (V8 finishes its collections and reduces the heap there)", async () => {
    // A thread that waited for work in Atomics.wait (piscina's default) never ran its event loop
    // when idle: a timer it set never fired, nor did V8's own tasks for its heap.
    const executor = new PoolExecutor(TEST_VERIFIERS, 1);
    const engine = new Engine({ registry, executor });
    try {
      const fired = async (schedule: boolean) => {
        const [result] = await engine.score([sample({ id: 't', verifier: 'timers', label: { schedule } })]);
        return result!.details['fired'] as number;
      };
      expect(await fired(true)).toBe(0);
      let seen = 0;
      for (let attempt = 0; attempt < 100 && seen === 0; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        seen = await fired(false);
      }
      expect(seen).toBe(1);
    } finally {
      await engine.close();
    }
  });

  it('summarizes groups over OK samples only', async () => {
    const batch = mixedQaBatch();
    const groups = summarizeGroups(batch, await pool.score(batch));
    expect(groups).toEqual([
      { groupId: 'g1', size: 2, ok: 2, aborted: 0, invalid: 0, meanReward: 0.5, keep: true, keepReason: '' },
      { groupId: 'g2', size: 3, ok: 1, aborted: 0, invalid: 2, meanReward: 1, keep: true, keepReason: '' },
      { groupId: 'g3', size: 1, ok: 0, aborted: 0, invalid: 1, keep: true, keepReason: '' },
    ]);
  });

  it('is deterministic across worker counts', async () => {
    const batch = Array.from({ length: 300 }, (_, i) => mixedQaBatch()[i % 7]!);
    const one = new Engine({ registry, executor: new PoolExecutor(TEST_VERIFIERS, 1) });
    try {
      expect(await one.score(batch)).toEqual(await pool.score(batch));
    } finally {
      await one.close();
    }
  });

  it('a cancelled batch comes back ABORTED at once and stops using the pool', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = pool.score(spinSamples(40, 20_000_000), { signal: controller.signal });
    setTimeout(() => controller.abort('cancelled'), 150);
    const results = await pending;
    expect(results).toHaveLength(40);
    const aborted = results.filter((r) => r.status === 'ABORTED');
    expect(aborted.length).toBeGreaterThan(30);
    for (const r of aborted) expect(r).toMatchObject({ reason: 'cancelled' });
    expect(results.every((r) => r.status === 'ABORTED' || r.reward === 1)).toBe(true);
    // The queued chunks were dropped: the next batch is not stuck behind ~40 × 20M iterations.
    const next = await pool.score(spinSamples(2, 10));
    expect(next.map((r) => r.status)).toEqual(['OK', 'OK']);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('one sample that takes its pool thread down loses only its own result, never its chunk-mates', async () => {
    const batch = Array.from({ length: 40 }, (_, i) => sample({ id: `c${i}`, verifier: 'crash', label: { crash: i === 17 } }));
    const results = await pool.score(batch);
    expect(results.map((r) => r.status)).toEqual(batch.map((_, i) => (i === 17 ? 'ABORTED' : 'OK')));
    expect(results[17]).toMatchObject({ reason: 'worker_failed' });
  });

  it('a sample that holds its thread past the sample budget is ABORTED worker_timeout; its chunk-mates are scored', async () => {
    const guarded = new Engine({ registry, executor: new PoolExecutor(TEST_VERIFIERS, 1), limits: { sampleBudgetMs: 1_000, chunkSampleMs: 50 } });
    try {
      // 10^12 iterations: hours of work, which no verdict may wait for.
      const batch = Array.from({ length: 21 }, (_, i) => sample({ id: `s${i}`, verifier: 'spin', label: { ops: i === 9 ? 1e12 : 10 } }));
      const results = await guarded.score(batch);
      expect(results.map((r) => r.status)).toEqual(batch.map((_, i) => (i === 9 ? 'ABORTED' : 'OK')));
      expect(results[9]).toMatchObject({ reason: 'worker_timeout', details: { limitMs: 1_000 } });
      expect(results[9]).not.toHaveProperty('reward');
    } finally {
      await guarded.close();
    }
  });

  it('samples rejected by the transport get their INVALID result without being scored', async () => {
    const batch = mixedQaBatch();
    const results = await pool.score(batch, { rejected: new Map([[0, 'label: nested deeper than 32 levels']]) });
    expect(results[0]).toMatchObject({ status: 'INVALID', reason: 'label: nested deeper than 32 levels', index: 0 });
    expect(results.slice(1)).toEqual((await pool.score(batch)).slice(1));
  });

  it('refuses a batch past the pending limit (back-pressure) and one larger than the batch limit', async () => {
    const small = new Engine({
      registry,
      executor: new InlineExecutor(registry),
      limits: { maxPendingSamples: 10, maxBatchSamples: 8 },
    });
    const first = small.score(spinSamples(8, 1_000_000));
    await expect(small.score(spinSamples(5, 1))).rejects.toBeInstanceOf(RequestRefused);
    await expect(small.score(spinSamples(5, 1))).rejects.toThrow(/queue full: 8 samples pending, limit 10/);
    await expect(small.score(spinSamples(9, 1))).rejects.toThrow(/9 samples exceed the limit of 8/);
    await first;
    expect((await small.score(spinSamples(5, 1))).every((r) => r.status === 'OK')).toBe(true);
    await small.close();
  });

  it('on close, refuses new work and aborts what outlives the grace period with reason "shutdown"', async () => {
    const engine = new Engine({ registry, executor: new PoolExecutor(TEST_VERIFIERS, 1) });
    const running = engine.score(spinSamples(30, 20_000_000));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = engine.close(200);
    await expect(engine.score(spinSamples(1, 1))).rejects.toThrow(/shutting down/);
    const results = await running;
    await closing;
    expect(results).toHaveLength(30);
    expect(results.filter((r) => r.status === 'ABORTED').every((r) => r.reason === 'shutdown')).toBe(true);
    expect(results.filter((r) => r.status === 'ABORTED').length).toBeGreaterThan(20);
  });
});
