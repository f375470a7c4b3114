/**
 * Python string semantics the reference checkers rely on. They are Python programs, and a verdict
 * often hinges on exactly which characters `str.split()`, `str.isupper()` or `\w` accept, so these
 * reproduce CPython's definitions rather than JavaScript's near-equivalents.
 */

/** Characters for which CPython's `str.isspace()` is true (and which `re`'s `\s` matches). */
export const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

/** Python `re`'s `\w` for str patterns: alphanumerics (letters and numbers of every script) and `_`. */
export const PY_WORD = '\\p{L}\\p{N}_';

/** `string.punctuation`. */
export const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/** `string.whitespace`: the ASCII whitespace only. */
export const ASCII_WHITESPACE = ' \t\n\r\x0b\x0c';

const SPACE_RUN = new RegExp(`[${PY_SPACE}]+`, 'u');
const SPACE_CHARS = new Set([
  ...'\t\n\v\f\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000',
  ...Array.from({ length: 4 }, (_, i) => String.fromCharCode(0x1c + i)),
  ...Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)),
]);
const PUNCT_SET = new Set(PUNCTUATION);
const PUNCT_RUN = /[!-/:-@[-`{-~]+/g;

export function isSpace(ch: string): boolean {
  return SPACE_CHARS.has(ch);
}

/** `s.split()`: runs of whitespace separate, leading and trailing whitespace yields nothing. */
export function pySplit(s: string): string[] {
  const parts = s.split(SPACE_RUN);
  if (parts.length > 0 && parts[0] === '') parts.shift();
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** `s.strip(chars)` / `lstrip` / `rstrip`; with no `chars`, Python whitespace. */
export function pyStrip(s: string, chars?: string): string {
  return pyRstrip(pyLstrip(s, chars), chars);
}

export function pyLstrip(s: string, chars?: string): string {
  const inSet = stripTest(chars);
  let i = 0;
  // Indexing by UTF-16 unit is safe: no strip set here contains astral characters, and a lone
  // surrogate never equals a BMP character.
  while (i < s.length && inSet(s[i] as string)) i++;
  return s.slice(i);
}

export function pyRstrip(s: string, chars?: string): string {
  const inSet = stripTest(chars);
  let j = s.length;
  while (j > 0 && inSet(s[j - 1] as string)) j--;
  return s.slice(0, j);
}

const stripSets = new Map<string, ReadonlySet<string>>();

function stripTest(chars?: string): (ch: string) => boolean {
  if (chars === undefined) return isSpace;
  let set = stripSets.get(chars);
  if (!set) {
    set = new Set(chars);
    // The callers pass a handful of constant sets; keep the cache from growing on odd input.
    if (stripSets.size < 64) stripSets.set(chars, set);
  }
  const found = set;
  return (ch) => found.has(ch);
}

/** `string.punctuation + ' '`, the strip set the IFBench checkers use most. */
export const PUNCT_AND_SPACE = PUNCTUATION + ' ';

/** `s.translate(str.maketrans('', '', string.punctuation))`. */
export function removePunctuation(s: string): string {
  return s.replace(PUNCT_RUN, '');
}

export function isPunctuation(ch: string): boolean {
  return PUNCT_SET.has(ch);
}

const LOWER = /[\p{Lowercase}]/u;
const UPPER = /[\p{Uppercase}]/u;
const TITLE = /\p{Lt}/u;

/** `s.isupper()`: at least one cased character, and none lowercase or titlecase. */
export function pyIsUpper(s: string): boolean {
  let cased = false;
  for (const ch of s) {
    if (LOWER.test(ch) || TITLE.test(ch)) return false;
    if (UPPER.test(ch)) cased = true;
  }
  return cased;
}

/** `s.islower()`: at least one cased character, and none uppercase or titlecase. */
export function pyIsLower(s: string): boolean {
  let cased = false;
  for (const ch of s) {
    if (UPPER.test(ch) || TITLE.test(ch)) return false;
    if (LOWER.test(ch)) cased = true;
  }
  return cased;
}

const ALPHA = /^\p{L}+$/u;
const ALNUM = /^[\p{L}\p{N}]+$/u;
const DIGIT = /^[\p{Nd}\u00b2\u00b3\u00b9\u2070-\u2079\u2080-\u2089\u2460-\u2468\u2474-\u247c\u2488-\u2490]+$/u;

export function pyIsAlpha(s: string): boolean {
  return ALPHA.test(s);
}

export function pyIsAlnum(s: string): boolean {
  return ALNUM.test(s);
}

/** `s.isdigit()`: decimal digits plus the superscript and circled digits Python also accepts. */
export function pyIsDigit(s: string): boolean {
  return DIGIT.test(s);
}

/** Python's `\b` for str patterns (JavaScript's `\b` is ASCII-only even with the `u` flag). */
export const PY_B = `(?:(?<=[${PY_WORD}])(?![${PY_WORD}])|(?<![${PY_WORD}])(?=[${PY_WORD}]))`;

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** Counts code points, as Python's `len` does (JavaScript's `length` counts UTF-16 units). */
export function pyLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** `unicodedata.normalize('NFKD', s).encode('ascii', 'ignore').decode()`. */
export function asciiFold(s: string): string {
  return s.normalize('NFKD').replace(/[^\x00-\x7f]/g, '');
}
