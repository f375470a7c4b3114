import { collectWhenIdle, garbageCollector } from './idle-gc';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, limitMs = 20_000): Promise<void> {
  for (const end = Date.now() + limitMs; !condition(); await sleep(20)) {
    if (Date.now() > end) throw new Error('condition not met in time');
  }
}

describe('idle garbage collection (services/idle-gc.ts)', () => {
  it('collects once the server has answered enough samples and then had nothing pending, and not again without new work', async () => {
    let pending = 0;
    let answered = 0;
    let collections = 0;
    const stop = collectWhenIdle(
      { pendingSamples: () => pending, answeredSamples: () => answered },
      { afterSamples: 100, idleMs: 100 },
      () => collections++,
    );
    try {
      // Too few samples answered: nothing, however long the server is idle.
      answered = 99;
      await sleep(400);
      expect(collections).toBe(0);
      // Enough answered, but work pending: nothing.
      answered = 250;
      pending = 8;
      await sleep(400);
      expect(collections).toBe(0);
      // Idle: one collection, and no second one until another 100 samples are answered.
      pending = 0;
      await until(() => collections === 1);
      await sleep(400);
      expect(collections).toBe(1);
      answered = 350;
      await until(() => collections === 2);
    } finally {
      stop();
    }
  });

  it("V8's collector it uses frees what nothing holds (a WeakRef's target, which only a full collection clears)", async () => {
    let target: object | null = { payload: new Array(1000).fill('x') };
    const ref = new WeakRef(target);
    target = null;
    // A WeakRef keeps its target for the rest of the job that made it.
    await sleep(0);
    garbageCollector()();
    expect(ref.deref()).toBeUndefined();
  });
});
