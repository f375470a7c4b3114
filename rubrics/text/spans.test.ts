import { DistinctSpans, HASH_BASIS, hashStep } from './spans';

function hash(text: string, start: number, end: number): number {
  let h = HASH_BASIS;
  for (let i = start; i < end; i++) h = hashStep(h, text.charCodeAt(i));
  return h;
}

/** The entries of each \S+ run of `text`, as a caller scanning words would add them. */
function entries(table: DistinctSpans, text: string, maxSpans = 64): number[] {
  table.reset(text, maxSpans);
  return [...text.matchAll(/\S+/g)].map((m) => {
    const start = m.index as number;
    const end = start + m[0].length;
    return table.entry(start, end, hash(text, start, end));
  });
}

describe('DistinctSpans', () => {
  it('gives equal spans one entry and different spans their own, numbered in order of first sight', () => {
    const table = new DistinctSpans();
    const text = 'the cat saw the other cat';
    expect(entries(table, text)).toEqual([0, 1, 2, 0, 3, 1]);
    expect(table.size).toBe(4);
    expect([0, 1, 2, 3].map((e) => table.spanText(e))).toEqual(['the', 'cat', 'saw', 'other']);
  });

  it('tells apart spans whose hashes collide', () => {
    const table = new DistinctSpans();
    const text = 'ab ba ab';
    table.reset(text, 4);
    // One hash for every span: only the comparison of units can separate them.
    expect([table.entry(0, 2, 7), table.entry(3, 5, 7), table.entry(6, 8, 7)]).toEqual([0, 1, 0]);
    expect(table.size).toBe(2);
  });

  it('tells apart a span from its prefix', () => {
    const table = new DistinctSpans();
    expect(entries(table, 'cat cats cat')).toEqual([0, 1, 0]);
  });

  it('starts empty after each reset, also for a new text and past its first capacity', () => {
    const table = new DistinctSpans();
    expect(entries(table, 'a b a')).toEqual([0, 1, 0]);
    expect(entries(table, 'b a b')).toEqual([0, 1, 0]);
    expect(table.spanText(0)).toBe('b');
    const many = Array.from({ length: 500 }, (_, i) => `w${i % 300}`).join(' ');
    const got = entries(table, many, 500);
    expect(table.size).toBe(300);
    expect(got.slice(300, 305)).toEqual([0, 1, 2, 3, 4]);
    expect(entries(table, 'x x', 2)).toEqual([0, 0]);
    expect(table.size).toBe(1);
  });

  it('counts as many distinct spans as a Set of the strings does', () => {
    const table = new DistinctSpans();
    const text = 'One one ONE one. two two; THREE three three! é e\u0301 é';
    entries(table, text);
    expect(table.size).toBe(new Set(text.match(/\S+/g)).size);
  });
});
