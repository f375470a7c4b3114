import { DecisionBook, parseDecision } from './decisions';
import { ItemNeighbours, NeighbourIndex, nearestSamples } from './neighbours';
import { sharedSpans } from './overlap';

describe('sharedSpans', () => {
  it('marks runs of at least n words both texts hold, as spans of each original text', () => {
    const sample = 'Q: Find the NUMBER of ordered pairs (m, n) with m+n=20. Thanks!';
    const item = 'Find the number of ordered pairs (m,n) such that m + n = 20.';
    const { a, b, sharedWords } = sharedSpans(sample, item, 4);
    expect(a.map((s) => sample.slice(s.start, s.end))).toEqual(['Find the NUMBER of ordered pairs (m, n']);
    expect(b.map((s) => item.slice(s.start, s.end))).toEqual(['Find the number of ordered pairs (m,n']);
    expect(sharedWords).toBe(8);
  });

  it('reads words as the 8-gram screen does (NFKC, case) and shares nothing with an unrelated text', () => {
    const { a } = sharedSpans('ｆｕｌｌ width text is here', 'full width text is here', 3);
    expect(a).toEqual([{ start: 0, end: 'ｆｕｌｌ width text is here'.length }]);
    expect(sharedSpans('the cat sat on the mat', 'a dog ran in the park', 3)).toEqual({ a: [], b: [], sharedWords: 0 });
    expect(sharedSpans('', 'anything', 4)).toEqual({ a: [], b: [], sharedWords: 0 });
  });
});

describe('decisions', () => {
  const good = { benchmark: 'aime24', itemId: 'i1', sample: 'a'.repeat(64), decision: 'contaminated', reviewer: 'alice', decidedAt: '2026-12-07T05:00:00Z' };

  it('parses a line, naming the first field that is wrong', () => {
    expect(parseDecision(good)).toMatchObject({ ok: true, decision: { ...good, line: null, id: null, similarity: null, note: null } });
    expect(parseDecision({ ...good, reviewer: '' })).toEqual({ ok: false, error: 'reviewer: expected a non-empty string' });
    expect(parseDecision({ ...good, sample: 'xyz' })).toEqual({ ok: false, error: 'sample: expected the SHA-256 (64 hex digits) of the sample text' });
    expect(parseDecision({ ...good, decidedAt: 'yesterday' })).toEqual({ ok: false, error: 'decidedAt: expected an ISO 8601 time' });
    expect(parseDecision({ ...good, line: 0 })).toEqual({ ok: false, error: 'line: expected a positive integer or null' });
    expect(parseDecision([1])).toEqual({ ok: false, error: 'expected a JSON object' });
  });

  it('a later decision on a pair replaces an earlier one; a sample is confirmed by any contaminated pair', () => {
    const book = new DecisionBook();
    const parse = (v: object) => {
      const r = parseDecision(v as never);
      if (!r.ok) throw new Error(r.error);
      return r.decision;
    };
    book.add(parse(good));
    book.add(parse({ ...good, decision: 'benign', reviewer: 'bob' }));
    book.add(parse({ ...good, itemId: 'i2', sample: 'b'.repeat(64) }));
    expect(book.of('aime24', 'i1', 'a'.repeat(64))?.reviewer).toBe('bob');
    expect([...book.confirmed().keys()]).toEqual(['b'.repeat(64)]);
  });
});

describe('neighbours', () => {
  const dims = 4;
  const items = Float32Array.from([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]);
  const samples = Float32Array.from([0.9, 0.1, 0, 0, 0, 0.2, 1, 0.1, 0, 0.2, 0.1, 0]);

  it('exact and HNSW find the same nearest items with exact cosines', () => {
    for (const method of ['exact', 'hnsw'] as const) {
      const found = new NeighbourIndex(items, dims, method, 1).search(samples, 2);
      expect(found.map((row) => row.map((n) => n.item))).toEqual([[0, 1], [2, 1], [1, 2]]);
      expect(found[0]![0]!.similarity).toBeCloseTo(0.9 / Math.hypot(0.9, 0.1), 5);
    }
  });

  it('each item\'s k nearest samples, exactly, and kept best-first across chunks', () => {
    const lists = nearestSamples(items, samples, dims, 1, 1);
    expect(lists.map((l) => l[0]!.item)).toEqual([0, 2, 1]);
    const best = new ItemNeighbours<string>(1, 2);
    best.offer(0, 0.5, 'a');
    best.offer(0, 0.9, 'b');
    best.offer(0, 0.7, 'c');
    best.offer(0, 0.1, 'd');
    expect(best.of(0).map((e) => e.sample)).toEqual(['b', 'c']);
  });
});
