import { Engine } from '../../services/engine/engine';
import { fitReply, RESPONSE_TOO_LARGE, Scorer, FinishCost, stopMargin, type StreamBatch } from '../../services/engine/scorer';
import { encodeScoreResponse } from '../../services/wire/binary';
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

  it('streams in batches: the same results and shaping as score, each batch within the reply limit', async () => {
    const batch = [...mixedQaBatch(), ...Array.from({ length: 60 }, (_, i) => sample({ id: `q${i}`, verifier: 'qa', groupId: `p${i % 6}`, responseTokens: 10 + i, response: `\\boxed{${'ABC'[i % 3]}}`, label: { choice: 'B' } }))];
    const options = { lengthPenalty: true, lengthPenaltyMax: 0.5, maxLength: 100, keepMin: 0, keepMax: 0.8, minValid: 2, advantage: 'grpo' as const };
    for (const groupOptions of [null, options]) {
      const whole = await scorer.score({ samples: batch, groupOptions });
      const batches: StreamBatch[] = [];
      await scorer.streamBatches({ samples: batch, groupOptions }, (b) => batches.push(b));
      expect(batches.length).toBeLessThan(batch.length);
      expect(batches.every((b) => b.results.length > 0)).toBe(true);
      expect(batches.flatMap((b) => b.results).sort((x, y) => x.index - y.index)).toEqual(whole.results);
      const byId = (g: { groupId: string }, h: { groupId: string }) => g.groupId.localeCompare(h.groupId);
      expect(batches.flatMap((b) => b.groups).sort(byId)).toEqual([...whole.groups].sort(byId));
      // A group's summary comes in the batch of its last result.
      for (const b of batches) for (const g of b.groups) expect(b.results.some((r) => batch[r.index]!.groupId === g.groupId)).toBe(true);
    }
    // A reply limit of a few results: batches are cut to it, and no result is lost.
    const limit = { maxBytes: 3 * 250, bytesPerChar: 3 };
    const small: StreamBatch[] = [];
    await scorer.streamBatches({ samples: batch, groupOptions: null, reply: limit }, (b) => small.push(b));
    expect(small.length).toBeGreaterThan(batch.length / 4);
    for (const b of small) expect(encodeScoreResponse(b.results, b.groups).length).toBeLessThanOrEqual(limit.maxBytes);
    expect(small.flatMap((b) => b.results.map((r) => r.index)).sort((x, y) => x - y)).toEqual(batch.map((_, i) => i));
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
