import { scorePure } from '../../core/score';
import type { Sample } from '../../core/sample';
import type { JsonObject } from '../../core/json';
import { qa } from '.';
import type { PureVerifier } from '../../core/verifier';

function sample(response: string, label: JsonObject): Sample {
  return { id: 's', verifier: 'qa', response, label, groupId: '', responseTokens: 0, metadata: {} };
}
const score = (response: string, label: JsonObject) => scorePure(qa as PureVerifier, sample(response, label));

describe('qa: multiple choice', () => {
  it.each([
    ['\\boxed{C}'],
    ['The answer is (C).'],
    ['Answer: C'],
    ['so it must be C.\n\\boxed{\\text{C}}'],
    ['<think>maybe A</think>The correct answer is C. because of X'],
    ['Final Answer: (C) photosynthesis'],
  ])('reads the letter from %s', (response) => {
    expect(score(response, { choice: 'C' })).toMatchObject({ status: 'OK', reward: 1, reason: 'correct_choice' });
  });

  it('gives 0 to another letter', () => {
    expect(score('\\boxed{B}', { choice: 'C' })).toMatchObject({ status: 'OK', reward: 0, reason: 'wrong_choice' });
  });

  it.each([['Answer: C\n\\boxed{}'], ['The answer is C. \\boxed{ }'], ['C is right, so \\boxed{\\text{}}']])(
    'gives no answer for an empty final box, whatever the text before it says: %s',
    (response) => {
      expect(score(response, { choice: 'C' })).toMatchObject({ status: 'OK', reward: 0, reason: 'no_answer' });
      expect(score(response, { answers: ['C'] })).toMatchObject({ status: 'OK', reward: 0, reason: 'no_answer' });
    },
  );

  it('does not read a sentence that starts with "A" as option A', () => {
    expect(score('Answer: A cell membrane', { choice: 'A' })).toMatchObject({ reward: 0, reason: 'no_choice' });
  });
});

describe('qa: colour', () => {
  it.each([
    ['\\boxed{\\textcolor{red}{C}}'],
    ['\\boxed{\\textcolor[rgb]{1,0,0}{\\textbf{C}}}'],
    ['\\boxed{\\colorbox{yellow}{(C)}}'],
    ['\\boxed{\\fcolorbox{red}{white}{C}}'],
    ['Answer: {\\color{blue} C}'],
    ['The answer is \\color{blue}C.'],
  ])('reads the coloured content of %s', (response) => {
    expect(score(response, { choice: 'C' })).toMatchObject({ status: 'OK', reward: 1, reason: 'correct_choice' });
  });

  it('reads free text in colour, and a wrong answer in colour is still wrong', () => {
    expect(score('\\boxed{\\textcolor{red}{\\text{Mitochondria}}}', { answers: ['mitochondria'] })).toMatchObject({ reward: 1, reason: 'exact_match' });
    expect(score('\\boxed{\\textcolor{red}{B}}', { choice: 'C' })).toMatchObject({ reward: 0, reason: 'wrong_choice' });
  });
});


describe('qa: free text', () => {
  it('matches after normalization (case, articles, punctuation, LaTeX)', () => {
    const r = score('Thus \\boxed{\\text{The Mitochondria.}}', { answers: ['mitochondria'] });
    expect(r).toMatchObject({ status: 'OK', reward: 1, reason: 'exact_match' });
  });

  it('accepts a close misspelling by fuzzy match and rejects a distant one', () => {
    expect(score('Answer: mitochondira', { answers: ['mitochondria'], threshold: 0.8 })).toMatchObject({
      reward: 1,
      reason: 'fuzzy_match',
    });
    const wrong = score('Answer: ribosome', { answers: ['mitochondria'] });
    expect(wrong).toMatchObject({ reward: 0, reason: 'wrong_answer' });
    expect(wrong.details).toMatchObject({ extracted: 'ribosome', reference: 'mitochondria' });
  });

  it('grades only after the last </think>, and an unclosed <think> has no answer', () => {
    expect(score('<think>\\boxed{mitochondria}</think> Answer: ribosome', { answers: ['mitochondria'] })).toMatchObject({
      reward: 0,
    });
    expect(score('<think>the answer is mitochondria', { answers: ['mitochondria'] })).toMatchObject({
      status: 'OK',
      reward: 0,
      reason: 'no_answer',
    });
  });
});

describe('qa: labels', () => {
  it('reads a number in answers as its text, where that text is unambiguous', () => {
    expect(score('\\boxed{42}', { answers: [42] })).toMatchObject({ status: 'OK', reward: 1 });
    expect(score('\\boxed{-0.5 M}', { answers: ['x', -0.5] })).toMatchObject({ status: 'OK', reward: 0 });
    expect(score('\\boxed{-0.5}', { answers: [-0.5] })).toMatchObject({ status: 'OK', reward: 1 });
    expect(score('\\boxed{1}', { answers: [1e21] })).toMatchObject({
      status: 'INVALID',
      reason: 'label.answers[0]: expected a string: the number 1e+21 has no unambiguous text',
    });
  });

  it('names the failing field', () => {
    expect(score('x', { answers: ['a', null] })).toEqual({
      status: 'INVALID',
      reason: 'label.answers[1]: expected a string',
      details: {},
    });
    expect(score('x', {})).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^label\.answers: /) });
    expect(score('x', { answers: ['a'], treshold: 0.5 })).toMatchObject({ reason: 'label.treshold: unknown field' });
  });
});
