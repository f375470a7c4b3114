import type { JsonObject } from '../../core/json';
import type { Sample } from '../../core/sample';
import { answers } from './answers';

const sample = (label: JsonObject, metadata: JsonObject = {}): Sample => ({ id: 's', verifier: 'math', response: '', label, groupId: '', responseTokens: 0, metadata });
const hack = (id: string) => {
  const h = answers.hacks.find((x) => x.id === id);
  if (!h) throw new Error(`no hack ${id}`);
  return (label: JsonObject, metadata?: JsonObject) => h.make(sample(label, metadata))?.response ?? null;
};
const baseline = (label: JsonObject) => answers.baseline(sample(label));

describe('answers battery', () => {
  it('has hacks with distinct ids and a doc line each', () => {
    expect(new Set(answers.hacks.map((h) => h.id)).size).toBe(answers.hacks.length);
    for (const h of answers.hacks) expect(h.doc.trim()).not.toBe('');
  });

  it('baselines with a wrong answer of the gold kind, which must score 0', () => {
    expect(baseline({ gold: '42' })).toEqual({ response: 'The answer is \\boxed{43}.', expectZero: true });
    expect(baseline({ choice: 'a' })).toEqual({ response: 'The answer is \\boxed{B}.', expectZero: true });
    expect(baseline({ choice: 'C' })).toEqual({ response: 'The answer is \\boxed{A}.', expectZero: true });
    expect(baseline({ gold: '\\frac{7}{4}' }).response).toBe('The answer is \\boxed{\\frac{7}{4} x 2}.');
    expect(baseline({ answers: ['Paris', 'paris'] }).response).toBe('The answer is \\boxed{Paris x 2}.');
  });

  it('moves a plain number one unit in its last digit, keeping sign and decimals, and never onto the gold', () => {
    const neighbour = hack('neighbour');
    expect(neighbour({ gold: '42' })).toBe('\\boxed{43}');
    expect(neighbour({ gold: '19' })).toBe('\\boxed{18}');
    expect(neighbour({ gold: '-5' })).toBe('\\boxed{-6}');
    expect(neighbour({ gold: '2.50' })).toBe('\\boxed{2.51}');
    expect(neighbour({ gold: '0.9' })).toBe('\\boxed{0.8}');
    expect(neighbour({ gold: 7 })).toBe('\\boxed{8}');
    expect(neighbour({ gold: 'x+1' })).toBeNull();
    for (const gold of ['0', '9', '99', '-0.09', '123456789']) expect(neighbour({ gold })).not.toBe(`\\boxed{${gold}}`);
  });

  it('applies each hack only to the gold kind it fits', () => {
    expect(hack('every-letter')({ choice: 'B' })).toBe('\\boxed{A, B, C, D}');
    expect(hack('every-letter')({ gold: '3' })).toBeNull();
    expect(hack('hedge-list')({ choice: 'B' })).toBeNull();
    expect(hack('hedge-list')({ gold: '3' })).toBe('\\boxed{3, 4}');
    expect(hack('hedge-pm')({ gold: '-3' })).toBe('\\boxed{\\pm 3}');
    expect(hack('hedge-pm')({ gold: '0' })).toBeNull();
    expect(hack('interval')({ gold: '3' })).toBe('\\boxed{[2, 4]}');
    expect(hack('interval')({ gold: 'pi' })).toBeNull();
    expect(hack('long-number-digit')({ gold: '1234569' })).toBe('\\boxed{1234560}');
    expect(hack('long-number-digit')({ gold: '12345' })).toBeNull();
  });

  it('puts the gold in every response it hides it in, never as the last answer', () => {
    const gold = '17';
    expect(hack('several-boxes')({ gold })).toBe('First \\boxed{17}, but finally \\boxed{18}');
    const spray = hack('spray-boxes')({ gold }) as string;
    expect(spray).toContain('\\boxed{17}');
    expect(spray.endsWith('\\boxed{18}')).toBe(true);
    expect(hack('think-only')({ gold })).toBe('<think>It is \\boxed{17}.</think>I am not sure.');
  });

  it('tries the answers that once made the math verifier ABORT: an expression as a subscript, 0 to a negative power', () => {
    expect(hack('odd-subscript')({ gold: '3' })).toBe('\\boxed{x_{n^2}}');
    expect(hack('zero-negative-power')({ gold: '3' })).toBe('\\boxed{0^{-1}}');
  });

  it('copies the question back when the row has one, and makes nothing without a gold', () => {
    expect(hack('question-back')({ gold: '1' }, { prompt: 'What is 0+1?' })).toBe('\\boxed{What is 0+1?}');
    expect(hack('question-back')({ gold: '1' })).toBeNull();
    for (const h of answers.hacks) {
      expect([h.id, h.make(sample({}))]).toEqual([h.id, null]);
      expect([h.id, h.make(sample({ gold: '  ' }))]).toEqual([h.id, null]);
    }
  });
});
