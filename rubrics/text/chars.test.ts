import { codePointLength, firstChar, isPalindromeSpan, lastChar, secondToLastChar } from './chars';

// U+1F600 (😀) and U+1D400 (𝐀) are one code point each, two UTF-16 units: Python counts them as one character.
const GRIN = '\u{1F600}';
const BOLD_A = '\u{1D400}';

describe('code-point helpers (Python indexing)', () => {
  it('reads s[0], s[-1] and s[-2] by code point, "" where Python would have no character', () => {
    expect(firstChar('')).toBe('');
    expect(firstChar('abc')).toBe('a');
    expect(firstChar(`${GRIN}bc`)).toBe(GRIN);
    expect(lastChar('')).toBe('');
    expect(lastChar('abc')).toBe('c');
    expect(lastChar(`ab${GRIN}`)).toBe(GRIN);
    expect(secondToLastChar('')).toBe('');
    expect(secondToLastChar('a')).toBe('');
    expect(secondToLastChar(GRIN)).toBe('');
    expect(secondToLastChar('abc')).toBe('b');
    expect(secondToLastChar(`a${GRIN}!`)).toBe(GRIN);
    expect(secondToLastChar(`${BOLD_A}${GRIN}`)).toBe(BOLD_A);
  });

  it('does not take a lone surrogate for half of a pair', () => {
    // A low surrogate with no high one before it is one (broken) character, as Python sees it.
    expect(lastChar('a\uDE00')).toBe('\uDE00');
    expect(secondToLastChar('\uDE00b')).toBe('\uDE00');
    expect(codePointLength('\uD83Da', 0, 2)).toBe(2);
  });

  it('counts code points of a span', () => {
    expect(codePointLength('hello', 0, 5)).toBe(5);
    expect(codePointLength('hello', 1, 3)).toBe(2);
    expect(codePointLength(`x${GRIN}${GRIN}y`, 0, 6)).toBe(4);
    expect(codePointLength(`x${GRIN}y`, 1, 3)).toBe(1);
    expect(codePointLength('abc', 2, 2)).toBe(0);
  });

  it('decides w == w[::-1] for a span by code point, without building it', () => {
    const span = (s: string) => isPalindromeSpan(`..${s}..`, 2, 2 + s.length);
    expect(span('racecar')).toBe(true);
    expect(span('abba')).toBe(true);
    expect(span('a')).toBe(true);
    expect(span('')).toBe(true);
    expect(span('ab')).toBe(false);
    expect(span('abca')).toBe(false);
    // Reversed by UTF-16 unit this would swap the halves of each pair and fail.
    expect(span(`${GRIN}a${GRIN}`)).toBe(true);
    expect(span(`${GRIN}${BOLD_A}${GRIN}`)).toBe(true);
    expect(span(`${GRIN}${BOLD_A}`)).toBe(false);
    // Case matters, as in Python.
    expect(span('Abba')).toBe(false);
  });

  it('agrees with Python semantics (Array.from) on mixed text', () => {
    const texts = ['', 'a', `${GRIN}`, `ab${GRIN}c${BOLD_A}`, `${BOLD_A}x${BOLD_A}`, 'level', `é${GRIN}é`];
    for (const t of texts) {
      const cps = Array.from(t);
      expect(firstChar(t)).toBe(cps[0] ?? '');
      expect(lastChar(t)).toBe(cps.at(-1) ?? '');
      expect(secondToLastChar(t)).toBe(cps.length >= 2 ? cps.at(-2) : '');
      expect(codePointLength(t, 0, t.length)).toBe(cps.length);
      expect(isPalindromeSpan(t, 0, t.length)).toBe(cps.join('') === [...cps].reverse().join(''));
    }
  });
});
