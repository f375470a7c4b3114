import { VERDICT_VERIFIERS } from '../pool-entry';
import { PoolExecutor } from './executor';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (up to ~20 s) until the threads have reported `count` collections in all, and answers how many they have. */
async function collectionsReaching(pool: PoolExecutor, count: number): Promise<number> {
  for (let i = 0; i < 400 && pool.threadCollections() < count; i++) await sleep(50);
  return pool.threadCollections();
}

describe("full collections of a pool's threads on request (services/pool/collections.ts)", () => {
  it('reach each thread of a real pool, once per request', async () => {
    const pool = new PoolExecutor(VERDICT_VERIFIERS, 2);
    try {
      // Started threads: each has loaded its entry module (a task on each, two at once).
      const probe = () => pool.runTask('nope', 'x', null, new AbortController().signal).catch((e: Error) => e.message);
      expect(await Promise.all([probe(), probe()])).toEqual(['no task "x" on verifier "nope"', 'no task "x" on verifier "nope"']);
      expect(pool.threadCollections()).toBe(0);
      pool.collectThreads();
      // Each thread collects once and counts it (a thread answers a request once): two in all.
      expect(await collectionsReaching(pool, 2)).toBe(2);
      await sleep(200);
      expect(pool.threadCollections()).toBe(2);
      pool.collectThreads();
      expect(await collectionsReaching(pool, 4)).toBe(4);
      // The threads still score after collecting.
      const samples = [{ id: 'a', verifier: 'qa', response: '\\boxed{C}', label: { choice: 'C' }, groupId: '', responseTokens: 0, metadata: {} }];
      expect(await pool.scoreChunk(samples, new AbortController().signal)).toEqual({ timed: [{ outcome: expect.objectContaining({ status: 'OK', reward: 1 }), seconds: expect.any(Number) }] });
    } finally {
      await pool.close();
    }
  });
});
