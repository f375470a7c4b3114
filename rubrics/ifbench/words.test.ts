import { checkWith, passes } from '../../test/pure/constraint';
import { withMemo } from '../text/memo';
import { pySplit, removePunctuation } from '../text/py';
import { alphabet, consonants, palindrome, primeLengths, repeats, vowel } from './words';

/**
 * The word checkers scan words in place (no split, no Set of strings, lines memoized in loose
 * mode); each is held here to the plain reading of the reference — split, count — on seeded texts,
 * inside and outside a loose-mode memo scope.
 */
function texts(words: readonly string[], count: number, seed: number): string[] {
  let s = seed;
  const next = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s >>> 8;
  };
  const seps = [' ', ' ', '\n', '  ', '\t', ', ', '. '];
  return Array.from({ length: count }, () =>
    Array.from({ length: next() % 30 }, () => `${words[next() % words.length]}${seps[next() % seps.length]}`).join(''),
  );
}

const isPalindrome = (w: string) => {
  const cps = Array.from(w);
  return cps.length >= 5 && cps.join('') === cps.reverse().join('');
};

const found = (reason: string) => Number(/(\d+)/.exec(reason)?.[1] ?? 0);

describe('IFBench word constraints', () => {
  it('palindrome counts the words of 5+ characters that read the same reversed, punctuation removed', () => {
    const words = ['level', 'Level', 'radar.', 'abba', 'kayak!', 'x😀y😀x', 'racecar', 'refer-refer', 'noon', 'stats', 'hello', 'a', 'rotor\n'];
    for (const t of texts(words, 400, 3)) {
      const expected = pySplit(removePunctuation(t).toLowerCase()).filter(isPalindrome).length;
      const strict = checkWith(palindrome, t);
      const loose = withMemo('parts', () => checkWith(palindrome, t));
      expect([t, strict.pass ? 'pass' : found(strict.reason)]).toEqual([t, expected >= 10 ? 'pass' : expected]);
      expect(loose).toEqual(strict);
    }
    expect(checkWith(palindrome, 'level radar civic').reason).toBe('found 3 palindromes of 5+ letters, expected at least 10');
  });

  it('repeats names the first word, in order of first use, used more than small_n times', () => {
    const words = ['the', 'The', 'cat', 'cat,', 'dog', 'a', 'é', 'e\u0301', 'cat.'];
    for (const t of texts(words, 400, 5)) {
      const counts = new Map<string, number>();
      for (const w of pySplit(removePunctuation(t.toLowerCase()))) counts.set(w, (counts.get(w) ?? 0) + 1);
      const first = [...counts].find(([, n]) => n > 3);
      const v = checkWith(repeats, t, { small_n: 3 });
      expect([t, v.reason]).toEqual([t, first ? `"${first[0]}" is repeated ${first[1]} times, expected at most 3` : '']);
    }
  });

  it('vowel allows at most three distinct vowels, in one paragraph', () => {
    expect(passes(vowel, 'A cat can tap a map.')).toBe(true);
    expect(checkWith(vowel, 'The quick brown fox.')).toEqual({ pass: false, reason: 'uses 4 different vowels (e, i, o, u), expected at most 3' });
    // Upper-case vowels count; y is not a vowel.
    expect(passes(vowel, 'AEI yyy')).toBe(true);
    expect(passes(vowel, 'AEIO')).toBe(false);
    expect(checkWith(vowel, 'a\nb').reason).toBe('found 2 lines, expected a single paragraph');
    expect(passes(vowel, '\n a cat \n')).toBe(true);
  });

  it('consonants needs two consonants in a row in every word', () => {
    expect(passes(consonants, 'Strong brisk winds blast.')).toBe(true);
    expect(checkWith(consonants, 'Strong wind at dusk')).toEqual({ pass: false, reason: '"at" has no consonant cluster' });
    // y counts as a consonant; vowels between letters break a cluster.
    expect(passes(consonants, 'myths')).toBe(true);
    expect(passes(consonants, 'banana')).toBe(false);
  });

  it('alphabet: each word starts with the letter after the previous one, wrapping from z to a', () => {
    expect(passes(alphabet, 'Apples bake crisply, delighting everyone.')).toBe(true);
    expect(passes(alphabet, 'Xylophones yield zebras, and bees.')).toBe(true);
    expect(checkWith(alphabet, 'Apples are tasty.')).toEqual({ pass: false, reason: '"are" should start with "b"' });
    expect(checkWith(alphabet, '42 bananas')).toEqual({ pass: false, reason: 'the first word does not start with a letter a-z' });
    expect(checkWith(alphabet, '... !!!')).toEqual({ pass: false, reason: 'the response has no words' });
  });

  it('prime_lengths needs every word, punctuation removed, to have a prime number of characters', () => {
    expect(passes(primeLengths, 'We ate three plums.')).toBe(true);
    expect(checkWith(primeLengths, 'We ate four plums.')).toEqual({ pass: false, reason: '"four" has 4 letters, not a prime number' });
    expect(checkWith(primeLengths, 'We ate a plum.')).toEqual({ pass: false, reason: '"a" has 1 letter, not a prime number' });
    expect(passes(primeLengths, 'A cat.')).toBe(false);
  });
});
