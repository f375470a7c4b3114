import { Engine } from '../../services/engine/engine';
import { fitReply, RESPONSE_TOO_LARGE, Scorer, FinishCost, stopMargin } from '../../services/engine/scorer';
import { InlineExecutor } from '../../services/pool/executor';
import { createRegistry } from '../fixtures/test-registry';
import { mixedQaBatch, sample } from '../fixtures/samples';
import { shapeGroups } from '../../core/groups';

const registry = createRegistry();

describe('Scorer', () => {
  let engine: Engine;
  let scorer: Scorer;
  beforeAll(() => {
    engine = new Engine({ registry, executor: new InlineExecutor(registry) });
    scorer = new Scorer(engine);
  });
  afterAll(() => engine.close());

  it('scores, shapes and summarizes a batch as the engine and shapeGroups do', async () => {
    const batch = mixedQaBatch();
    const scored = await scorer.score({ samples: batch, groupOptions: null });
    const expected = shapeGroups(batch, await engine.score(batch), null);
    expect(scored.results).toEqual(expected.results);
    expect(scored.groups).toEqual(expected.groups);
    const streamed: Array<{ index: number; group?: string }> = [];
    await scorer.stream({ samples: batch, groupOptions: null }, (item) =>
      streamed.push({ index: item.result.index, ...(item.group ? { group: item.group.groupId } : {}) }),
    );
    expect(streamed.map((s) => s.index).sort()).toEqual(batch.map((_, i) => i));
    expect(streamed.filter((s) => s.group).map((s) => s.group).sort()).toEqual(['g1', 'g2', 'g3']);
  });

  it('reserves the cost of finishing every result of the batch before the deadline', async () => {
    // 10% of 10 s is 1 s; finishing 20,000 results at 0.25 ms each, reserved twice, needs 10 s more: nothing can be started.
    const cost = new FinishCost(0.25, 0);
    expect(cost.reserveMs(20_000)).toBe(10_000);
    expect(stopMargin(10_000, cost.reserveMs(20_000))).toBe(11_000);
    expect(stopMargin(100, 0)).toBe(50);
    const batch = Array.from({ length: 20_000 }, () => sample({ verifier: 'spin', label: { ops: 1 } }));
    const scored = await scorer.score({ samples: batch, groupOptions: null, deadline: Date.now() + 10_000, finishReserveMs: cost.reserveMs(batch.length) });
    expect(scored.results).toHaveLength(20_000);
    expect(scored.results.every((r) => r.status === 'ABORTED' && r.reason === 'deadline')).toBe(true);
    expect(scored.stoppedEarly).toBe(true);
    // The same batch with a cheap transport runs to its end well within the budget.
    const cheap = await scorer.score({ samples: batch.slice(0, 100), groupOptions: null, deadline: Date.now() + 60_000, finishReserveMs: 10 });
    expect(cheap.results.every((r) => r.status === 'OK')).toBe(true);
  });

  it('learns a fixed cost of stopping from small batches and the dearer per-result cost from large ones', () => {
    const cost = new FinishCost(0.01, 100);
    expect(cost.reserveMs(1000)).toBeCloseTo(2 * (100 + 10));
    cost.record(100, 1000, false); // a small batch that ran to its end says nothing
    expect(cost.reserveMs(1000)).toBeCloseTo(220);
    cost.record(40, 400, true); // stopping took 400 ms: the fixed part moves towards it
    expect(cost.reserveMs(0)).toBeGreaterThan(200);
    const fixed = cost.reserveMs(0) / 2;
    cost.record(10_000, fixed + 1000, true); // 0.1 ms per result when cut short, besides the fixed part
    expect(cost.reserveMs(10_000)).toBeCloseTo(2 * (fixed + 1000));
  });

  it('fits a reply: the results past the limit become ABORTED "response_too_large", the others are kept in order', async () => {
    const batch = Array.from({ length: 6 }, (_, i) => sample({ id: `w${i}`, verifier: 'wide', label: { keys: i % 2 === 0 ? 100 : 1, chars: 1000 } }));
    const results = await engine.score(batch);
    const fitted = fitReply(results, batch, false, { maxBytes: 250_000, bytesPerChar: 1 });
    expect(fitted.map((r) => [r.status, r.reason])).toEqual([
      ['OK', 'wide'],
      ['OK', 'wide'],
      ['OK', 'wide'],
      ['OK', 'wide'],
      ['ABORTED', RESPONSE_TOO_LARGE],
      ['OK', 'wide'],
    ]);
    expect('reward' in fitted[4]!).toBe(false);
    expect(fitReply(results, batch, false, { maxBytes: 1 << 30, bytesPerChar: 3 })).toBe(results);
  });
});
