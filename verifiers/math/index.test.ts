import type { JsonObject } from '../../core/json';
import type { Sample } from '../../core/sample';
import { scorePure } from '../../core/score';
import type { PureVerifier } from '../../core/verifier';
import { math } from '.';

function sample(response: string, label: JsonObject): Sample {
  return { id: 's', verifier: 'math', response, label, groupId: '', responseTokens: 0, metadata: {} };
}
const score = (response: string, label: JsonObject) => scorePure(math as PureVerifier, sample(response, label));

describe('math verifier', () => {
  it('scores a boxed answer against a LaTeX gold, with details of every stage', () => {
    const r = score('We simplify. Therefore, the answer is $\\boxed{\\dfrac{7}{4}}$.', { gold: '$\\frac{7}{4}$' });
    expect(r).toEqual({
      status: 'OK',
      reward: 1,
      reason: 'correct',
      details: { extracted: '\\dfrac{7}{4}', extract_rule: 'boxed', gold_canonical: '7/4', answer_canonical: '7/4', match: 'exact' },
    });
    expect(score('Thus we get \\boxed{\\frac{11}{32}}.', { gold: '$\\frac{32}{11}$' })).toMatchObject({ reward: 0, reason: 'wrong_answer' });
  });

  it('grades only after the last </think>; an unclosed <think> has no answer', () => {
    expect(score('<think>\\boxed{5}</think> so \\boxed{6}', { gold: '5' })).toMatchObject({ reward: 0 });
    expect(score('<think>it is \\boxed{5}', { gold: '5' })).toMatchObject({ status: 'OK', reward: 0, reason: 'no_answer' });
  });

  it('scores an answer with a subscript of any shape, never ABORTED (a policy must not leave its group)', () => {
    expect(score('\\boxed{a_{n^2}}', { gold: 'a_{n^2}' })).toMatchObject({ status: 'OK', reward: 1 });
    expect(score('\\boxed{x_{1/2}}', { gold: '5' })).toMatchObject({ status: 'OK', reward: 0 });
    expect(score('\\boxed{5}', { gold: 'a_{\\frac{1}{2}}' })).toMatchObject({ status: 'OK', reward: 0 });
  });

  it('scores zero to a negative power as no value, like 1/0, never ABORTED', () => {
    for (const answer of ['0^{-1}', '0^{-2}', '0^{i^2}', '(0)^{(-1)}']) {
      expect([answer, score(`\\boxed{${answer}}`, { gold: '1/2' })]).toEqual([answer, expect.objectContaining({ status: 'OK', reward: 0, reason: 'unparseable_answer' })]);
    }
    expect(score('\\boxed{\\frac{1}{0}}', { gold: '1/2' })).toMatchObject({ status: 'OK', reward: 0, reason: 'unparseable_answer' });
  });

  it('honours label.extract', () => {
    const response = 'The final answer is $5$. I hope it is correct.';
    expect(score(response, { gold: '5' })).toMatchObject({ reward: 1 });
    expect(score(response, { gold: '5', extract: 'boxed' })).toMatchObject({ reward: 0, reason: 'no_answer' });
  });

  it('honours label.precision and label.strict', () => {
    expect(score('\\boxed{0.3333}', { gold: '$\\frac{1}{3}$' })).toMatchObject({ reward: 0 });
    expect(score('\\boxed{0.3333}', { gold: '$\\frac{1}{3}$', precision: 4 })).toMatchObject({ reward: 1, details: { match: 'decimal_tolerance' } });
    expect(score('\\boxed{f(y)}', { gold: '$f(x)$' })).toMatchObject({ reward: 0 });
    expect(score('\\boxed{f(y)}', { gold: '$f(x)$', strict: false })).toMatchObject({ reward: 1 });
  });

  it('answers INVALID naming the field for a bad label', () => {
    expect(score('\\boxed{1}', {})).toEqual({ status: 'INVALID', reason: 'label.gold: required', details: {} });
    expect(score('\\boxed{1}', { gold: true })).toMatchObject({ status: 'INVALID', reason: 'label.gold: expected a string' });
    // gsm8k's answer column as a number: read as its text.
    expect(score('\\boxed{42}', { gold: 42 })).toMatchObject({ status: 'OK', reward: 1 });
    expect(score('\\boxed{41}', { gold: 42 })).toMatchObject({ status: 'OK', reward: 0 });
    expect(score('\\boxed{1}', { gold: 2 ** 60 })).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^label\.gold: expected a string: the number/) });
    expect(score('\\boxed{1}', { gold: '  ' })).toMatchObject({ status: 'INVALID', reason: 'label.gold: empty' });
    expect(score('\\boxed{1}', { gold: '$\\frac{1}$' })).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^label\.gold: unparseable/) });
    expect(score('\\boxed{1}', { gold: '1', extract: 'last' })).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^label\.extract: /) });
    expect(score('\\boxed{1}', { gold: '1', precision: 40 })).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^label\.precision: /) });
    expect(score('\\boxed{1}', { gold: '1', tolerance: 1 })).toMatchObject({ reason: 'label.tolerance: unknown field' });
  });

  it('gives 0 with reason unparseable_answer to an answer it cannot read', () => {
    expect(score('\\boxed{(1, 2}', { gold: '1' })).toMatchObject({ status: 'OK', reward: 0, reason: 'unparseable_answer' });
    expect(score('\\boxed{1/0}', { gold: '1' })).toMatchObject({ reward: 0, reason: 'unparseable_answer', details: { error: 'division by zero' } });
    expect(score('\\boxed{0}', { gold: '$\\frac{0}{0}$' })).toMatchObject({ status: 'INVALID', reason: 'label.gold: unparseable (division by zero)' });
  });

  it('reads a gold of inequalities joined by "or" in prose as one set', () => {
    const gold = { gold: '$x \\le 2$ or $x > 3$' };
    expect(score('So \\boxed{(-\\infty, 2] \\cup (3, \\infty)}.', gold)).toMatchObject({ reward: 1, details: { match: 'relation_as_set' } });
    expect(score('So \\boxed{x \\le 2 \\text{ or } x > 3}.', gold)).toMatchObject({ reward: 1 });
    expect(score('So \\boxed{(-\\infty, 2) \\cup (3, \\infty)}.', gold)).toMatchObject({ reward: 0, reason: 'wrong_answer' });
    expect(score('The solution is $x \\le 2$ or $x > 3$.', { gold: '$(-\\infty, 2] \\cup (3, \\infty)$' })).toMatchObject({ reward: 1 });
    expect(score('So \\boxed{x \\le 2 \\text{ or } x > 3}.', { gold: 'x ≤ 2 or x > 3' })).toMatchObject({ reward: 1 });
  });

  it('reads scientific notation in plain answers', () => {
    expect(score('so it is 1e-3', { gold: '$0.001$' })).toMatchObject({ reward: 1, details: { match: 'exact' } });
  });

  it('gives 0 with reason too_complex to pathological answers, quickly and deterministically', () => {
    const tooComplex = (response: string) =>
      expect(score(response, { gold: '$5$' })).toMatchObject({ status: 'OK', reward: 0, reason: 'too_complex' });
    tooComplex('\\boxed{10^{10^{10}}}');
    tooComplex(`\\boxed{${'{'.repeat(3000)}1${'}'.repeat(3000)}}`);
    tooComplex(`\\boxed{${Array.from({ length: 10_000 }, (_, i) => i).join('+')}}`);
    tooComplex(`\\boxed{${'9'.repeat(20_000)}}`);
    tooComplex('\\boxed{(x+1)^{5000}}');
  });

  it('finds the answer at the end of a megabyte response', () => {
    expect(score(`${'lorem ipsum 12 '.repeat(70_000)} so \\boxed{5}`, { gold: '5' })).toMatchObject({ reward: 1 });
  });

  it('agrees with itself on repeated golds (the per-worker cache)', () => {
    const a = score('\\boxed{2\\sqrt{21}}', { gold: '$\\sqrt{84}$' });
    const b = score('\\boxed{2\\sqrt{21}}', { gold: '$\\sqrt{84}$' });
    expect(a).toEqual(b);
    expect(a).toMatchObject({ reward: 1 });
  });
});
