import { compareAnswer, similarity } from './match';
import { tokenize } from './tokens';

const compare = (answer: string, reference: string, threshold = 0.8) => compareAnswer(tokenize(answer), tokenize(reference), threshold);

describe('similarity', () => {
  it('is 1 for equal strings, 0 for nothing in common, one minus edits over the longer length between', () => {
    expect(similarity('', '')).toBe(1);
    expect(similarity('abc', 'abc')).toBe(1);
    expect(similarity('abc', 'xyz')).toBe(0);
    expect(similarity('kitten', 'sitting')).toBeCloseTo(1 - 3 / 7);
  });
});

describe('compareAnswer', () => {
  it('is exact for the same words written with other case, spacing or hyphens', () => {
    expect(compare('Mitochondria', 'mitochondria')).toEqual({ kind: 'exact' });
    expect(compare('carbon-dioxide', 'carbon dioxide')).toEqual({ kind: 'exact' });
  });

  it('forgives a spelling slip in a long word, with the similarity over all letters', () => {
    const match = compare('mitochondira', 'mitochondria');
    expect(match.kind).toBe('fuzzy');
    expect((match as { similarity: number }).similarity).toBeCloseTo(1 - 2 / 12);
  });

  it('never forgives a different number, a short word or a name', () => {
    expect(compare('42 apples', '43 apples')).toMatchObject({ kind: 'wrong', mismatch: 'numbers differ: [42] vs [43]' });
    expect(compare('cats', 'cars')).toMatchObject({ kind: 'wrong', mismatch: "short word 'cats' vs 'cars' differs" });
    expect(compare('NaCl', 'NaBr')).toMatchObject({ kind: 'wrong' });
  });

  it('refuses a slip that changes a meaningful affix, naming it', () => {
    expect(compare('intracellular', 'intercellular')).toMatchObject({ kind: 'wrong', mismatch: expect.stringMatching(/differs in (intra|inter)-$/) });
  });

  it('holds the threshold: a slip the default forgives is wrong under a stricter one', () => {
    expect(compare('mitochondira', 'mitochondria', 0.95)).toMatchObject({ kind: 'wrong' });
  });
});
