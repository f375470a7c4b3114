import { extractAnswer } from './extract';

describe('extractAnswer', () => {
  it('takes the last box first, and a box with nothing in it states no answer', () => {
    expect(extractAnswer('The answer is 3. \\boxed{4}')).toEqual({ text: '4', rule: 'boxed' });
    expect(extractAnswer('The answer is 3. \\boxed{\\text{ }}')).toBeNull();
  });

  it('else takes whichever of "the answer is" and "Answer:" comes later', () => {
    expect(extractAnswer('Answer: 1\nso the final answer is: Paris.')).toEqual({ text: 'Paris', rule: 'answer_is' });
    expect(extractAnswer('the answer is 1\n**Final Answer:** **Paris**')).toEqual({ text: 'Paris', rule: 'answer_colon' });
  });

  it('is null when the response states no answer', () => {
    expect(extractAnswer('I think it might be Paris')).toBeNull();
    expect(extractAnswer('Answer: **.**')).toBeNull();
  });
});
