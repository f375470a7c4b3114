import { checkWith, passes } from '../../test/pure/constraint';
import { existence, forbiddenWords, frequency, letterFrequency } from './keywords';

describe('IFEval keyword constraints', () => {
  it('existence: each keyword is a case-insensitive pattern searched as a substring', () => {
    expect(passes(existence, 'CONCATENATE the Carriage', { keywords: ['cat', 'carriage'] })).toBe(true);
    expect(passes(existence, 'the color red', { keywords: ['colou?r'] })).toBe(true);
    expect(checkWith(existence, 'nothing here', { keywords: ['zebra', 'apple'] })).toEqual({ pass: false, reason: 'missing keywords "apple", "zebra"' });
    expect(checkWith(existence, 'an apple', { keywords: ['zebra', 'apple'] }).reason).toBe('missing keyword "zebra"');
  });

  it('frequency: counts non-overlapping case-insensitive matches, "less than" strictly', () => {
    // "the" in There, then, the: 3.
    const kw = (frequency: number, relation: string) => ({ keyword: 'the', frequency, relation });
    expect(checkWith(frequency, 'There then the', kw(3, 'less than'))).toEqual({ pass: false, reason: '"the" appears 3 times, expected fewer than 3' });
    expect(passes(frequency, 'There then the', kw(3, 'at least'))).toBe(true);
    expect(passes(frequency, 'aaaa', { keyword: 'aa', frequency: 3, relation: 'less than' })).toBe(true);
    expect(checkWith(frequency, 'aaaa', { keyword: 'aa', frequency: 3, relation: 'at least' }).reason).toBe('"aa" appears 2 times, expected at least 3');
  });

  it('forbidden_words: matched as whole words (\\b…\\b), case-insensitively', () => {
    const forbid = (response: string, forbidden_words: string[]) => checkWith(forbiddenWords, response, { forbidden_words });
    expect(forbid('Many cats here.', ['cat']).pass).toBe(true);
    expect(forbid("The cat's toy.", ['cat'])).toEqual({ pass: false, reason: 'uses forbidden word "cat"' });
    expect(forbid('A CAT.', ['cat']).pass).toBe(false);
    // The underscore is a word character: cat_food is one word.
    expect(forbid('cat_food', ['cat']).pass).toBe(true);
    // A phrase runs as the reference's regex.
    expect(forbid('I like ice cream.', ['ice cream']).pass).toBe(false);
    expect(forbid('I like ice-cream.', ['ice cream']).pass).toBe(true);
    // Reported in sorted order, whatever the label's.
    expect(forbid('dogs and cats', ['dogs', 'cats']).reason).toBe('uses forbidden word "cats"');
  });

  it('letter_frequency: counts the letter case-insensitively', () => {
    expect(passes(letterFrequency, 'Yay, yearly!', { letter: 'Y', let_frequency: 4, let_relation: 'at least' })).toBe(true);
    expect(checkWith(letterFrequency, 'Yay, yearly!', { letter: 'y', let_frequency: 4, let_relation: 'less than' }).reason).toBe(
      'letter "y" appears 4 times, expected fewer than 4',
    );
    expect(letterFrequency.kwargs.safeParse({ letter: 'ab', let_frequency: 1, let_relation: 'at least' }).success).toBe(false);
  });

  it('refuses a keyword that is not a pattern the linear-time rules accept', () => {
    expect(existence.kwargs.safeParse({ keywords: ['(unclosed'] }).success).toBe(false);
    expect(existence.kwargs.safeParse({ keywords: [] }).success).toBe(false);
  });
});
