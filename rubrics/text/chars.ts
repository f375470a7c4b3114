/**
 * Code-point helpers for checkers that look at one end of a word or sentence: Python indexes
 * strings by code point, and `Array.from(s)` of a whole sentence to read one character was a
 * large part of those checkers' time.
 */

// Characters are read as `charCodeAt.call(s, i)`: see rubrics/text/py.ts.
const charCodeAt = String.prototype.charCodeAt;
const codePointAt = String.prototype.codePointAt;

/** `s[0]` in Python: the first code point, or "" for "". */
export function firstChar(s: string): string {
  if (s.length === 0) return '';
  return (codePointAt.call(s, 0) as number) > 0xffff ? s.slice(0, 2) : (s[0] as string);
}

/** The UTF-16 length of the code point that ends at `end` (exclusive): 2 for a surrogate pair. */
function widthBefore(s: string, end: number): number {
  if (end >= 2) {
    const low = charCodeAt.call(s, end - 1);
    const high = charCodeAt.call(s, end - 2);
    if (low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff) return 2;
  }
  return 1;
}

/** `s[-1]` in Python, or "" for "". */
export function lastChar(s: string): string {
  return s.length === 0 ? '' : s.slice(s.length - widthBefore(s, s.length));
}

/** `s[-2]` in Python, or "" when `s` has fewer than two code points. */
export function secondToLastChar(s: string): string {
  if (s.length === 0) return '';
  const end = s.length - widthBefore(s, s.length);
  return end === 0 ? '' : s.slice(end - widthBefore(s, end), end);
}

/** `w == w[::-1]` for `w = s.slice(start, end)`, by code point, without building either. */
export function isPalindromeSpan(s: string, start: number, end: number): boolean {
  let i = start;
  let j = end;
  while (i < j) {
    const left = codePointAt.call(s, i) as number;
    const rightWidth = widthBefore(s, j);
    if (left !== codePointAt.call(s, j - rightWidth)) return false;
    i += left > 0xffff ? 2 : 1;
    j -= rightWidth;
  }
  return true;
}

/** Python's `len(s.slice(start, end))`: its code points. */
export function codePointLength(s: string, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++, n++) if ((codePointAt.call(s, i) as number) > 0xffff) i++;
  return n;
}
