import type { Piscina } from 'piscina';
import { VERDICT_VERIFIERS } from '../pool-entry';
import { startThreadsEarly, takeThreads } from './threads';

const ENTRY = VERDICT_VERIFIERS.module;

/** What a pool answers to a task of a verifier that has none: proof that its threads run. */
const probe = (pool: Piscina) => pool.run({ op: 'task', verifier: 'nope', task: 'x', payload: null }).catch((e: Error) => e.message);
const RAN = 'no task "x" on verifier "nope"';

describe('threads started early', () => {
  it('are what the next pool over the same entry and thread count takes', async () => {
    const early = startThreadsEarly(ENTRY, 1);
    const pool = takeThreads(ENTRY, 1);
    expect(pool).toBe(early.pool);
    expect(pool.threads).toHaveLength(1);
    // Taken: release leaves them to their pool, which still runs tasks.
    await early.release();
    expect(await probe(pool)).toBe(RAN);
    // Taken once: the next pool gets threads of its own.
    const next = takeThreads(ENTRY, 1);
    expect(next).not.toBe(pool);
    await Promise.all([pool.destroy(), next.destroy()]);
  });

  it('are not taken by a pool of another size, which starts its own', async () => {
    const early = startThreadsEarly(ENTRY, 1);
    const pool = takeThreads(ENTRY, 2);
    expect(pool).not.toBe(early.pool);
    expect(pool.threads).toHaveLength(2);
    expect(await probe(pool)).toBe(RAN);
    await pool.destroy();
  });

  it('are stopped by release when no pool took them', async () => {
    const early = startThreadsEarly(ENTRY, 1);
    await early.release();
    expect(early.pool.threads).toHaveLength(0);
    const pool = takeThreads(ENTRY, 1);
    expect(pool).not.toBe(early.pool);
    expect(await probe(pool)).toBe(RAN);
    await pool.destroy();
  });
});
