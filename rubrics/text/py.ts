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

const PUNCT_SET = new Set(PUNCTUATION);
const PUNCT_CODES = new Uint8Array(128);
for (const ch of PUNCTUATION) PUNCT_CODES[ch.charCodeAt(0)] = 1;
const PUNCT_RUN = /[!-/:-@[-`{-~]+/g;

/**
 * `String.prototype.charCodeAt` and `codePointAt`, for the loops over every character of a text to
 * call as `charCodeAt.call(s, i)`. The checkers' loops meet strings of every representation V8
 * has (flat or sliced, one or two bytes a unit, …); past a few of them, V8 compiled `s.charCodeAt(i)`
 * and `s.length` in such a loop into a generic lookup per character, several times slower
 * (ratio:stop_words ran at a quarter of its speed once the other checkers had run). Called through
 * `call` on the known builtin, the read takes any string; a helper function wrapping it was not
 * always inlined, a call per character. The builtins are module constants in each file that reads
 * them: V8 folds those into the loop, and not an export. The loops also read the length once.
 */
const charCodeAt = String.prototype.charCodeAt;
const codePointAt = String.prototype.codePointAt;

/** `str.isspace()` for one UTF-16 unit (every Python whitespace character is in the BMP). */
export function isSpaceCode(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code >= 0x1c && code <= 0x1f);
  if (code < 0x85) return false;
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

/** `ch.isspace()` for one character. */
export function isSpace(ch: string): boolean {
  return ch.length === 1 && isSpaceCode(ch.charCodeAt(0));
}

/**
 * `s.split()`: runs of whitespace separate, leading and trailing whitespace yields nothing. A scan
 * rather than a regex split: the checkers split every response, many of them per sentence.
 */
export function pySplit(s: string): string[] {
  const parts: string[] = [];
  let start = -1;
  for (let i = 0, length = s.length; i < length; i++) {
    if (isSpaceCode(charCodeAt.call(s, i))) {
      if (start >= 0) parts.push(s.slice(start, i));
      start = -1;
    } else if (start < 0) start = i;
  }
  if (start >= 0) parts.push(s.slice(start));
  return parts;
}

/**
 * The words of `s.split()` as spans, in order, without building them: `visit(start, end)` is
 * called for each, and the scan stops when it returns true. Checkers that stop at the first word
 * that fails, or keep few of the words, skip building the strings that `pySplit` would.
 */
export function scanWords(s: string, visit: (start: number, end: number) => boolean | void): void {
  let start = -1;
  for (let i = 0, length = s.length; i < length; i++) {
    if (isSpaceCode(charCodeAt.call(s, i))) {
      if (start >= 0 && visit(start, i) === true) return;
      start = -1;
    } else if (start < 0) start = i;
  }
  if (start >= 0) visit(start, s.length);
}

/**
 * `len(removePunctuation(s).split())` without building either: a whitespace-separated chunk is
 * a word unless it is all punctuation, which removing punctuation would empty.
 */
export function countWordsWithoutPunctuation(s: string): number {
  let words = 0;
  let inChunk = false;
  let counted = false;
  for (let i = 0, length = s.length; i < length; i++) {
    const code = charCodeAt.call(s, i);
    if (isSpaceCode(code)) {
      inChunk = false;
      continue;
    }
    if (!inChunk) {
      inChunk = true;
      counted = false;
    }
    if (!counted && !(code < 128 && PUNCT_CODES[code] === 1)) {
      counted = true;
      words++;
    }
  }
  return words;
}

/** `s.strip(chars)` / `lstrip` / `rstrip`; with no `chars`, Python whitespace. */
export function pyStrip(s: string, chars?: string): string {
  return pyRstrip(pyLstrip(s, chars), chars);
}

// Indexing by UTF-16 unit is safe: no strip set here contains astral characters, and a lone
// surrogate never equals a BMP character.
export function pyLstrip(s: string, chars?: string): string {
  const strip = stripSet(chars);
  let i = 0;
  while (i < s.length && strip.has(charCodeAt.call(s, i))) i++;
  return i === 0 ? s : s.slice(i);
}

export function pyRstrip(s: string, chars?: string): string {
  const strip = stripSet(chars);
  let j = s.length;
  while (j > 0 && strip.has(charCodeAt.call(s, j - 1))) j--;
  return j === s.length ? s : s.slice(0, j);
}

/** The characters to strip, by UTF-16 unit; checkers strip every word, so this avoids a Set of strings. */
interface StripSet {
  has(code: number): boolean;
}

const WHITESPACE: StripSet = { has: isSpaceCode };

function charSet(chars: string): StripSet {
  const ascii = new Uint8Array(128);
  const other = new Set<number>();
  for (let i = 0, length = chars.length; i < length; i++) {
    const code = charCodeAt.call(chars, i);
    if (code < 128) ascii[code] = 1;
    else other.add(code);
  }
  return { has: (code) => (code < 128 ? ascii[code] === 1 : other.has(code)) };
}

const stripSets = new Map<string, StripSet>();

function stripSet(chars?: string): StripSet {
  if (chars === undefined) return WHITESPACE;
  let set = stripSets.get(chars);
  if (!set) {
    set = charSet(chars);
    // The callers pass a handful of constant sets; keep the cache from growing on odd input.
    if (stripSets.size < 64) stripSets.set(chars, set);
  }
  return set;
}

/** `string.punctuation + ' '`, the strip set the IFBench checkers use most. */
export const PUNCT_AND_SPACE = PUNCTUATION + ' ';

/** `s.strip(string.punctuation + ' ')`, the strip the IFBench checkers apply to every word. */
export function stripPunctuation(s: string): string {
  const [i, j] = punctuationStripped(s, 0, s.length);
  return i === 0 && j === s.length ? s : s.slice(i, j);
}

/** The span of `s.slice(start, end).strip(string.punctuation + ' ')` within `s`. */
export function punctuationStripped(s: string, start: number, end: number): [number, number] {
  let i = start;
  let j = end;
  while (i < j && isPunctOrSpace(charCodeAt.call(s, i))) i++;
  while (j > i && isPunctOrSpace(charCodeAt.call(s, j - 1))) j--;
  return [i, j];
}

/** Whether a UTF-16 unit is in `string.punctuation + ' '`. */
export function isPunctOrSpace(code: number): boolean {
  return code < 128 && (PUNCT_CODES[code] === 1 || code === 0x20);
}

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

const IS_LOWER = 1;
const IS_UPPER = 2;
const IS_TITLE = 4;
const LOOKED_UP = 8;

/**
 * Case properties by code point, looked up once per code point: `isupper`/`islower` run over
 * whole responses and every token, and three Unicode-property tests per character were most of
 * their time. ASCII is decided inline.
 */
const bmpCase = new Uint8Array(0x10000);
const astralCase = new Map<number, number>();

function caseOf(codePoint: number): number {
  const known = codePoint < 0x10000 ? (bmpCase[codePoint] as number) : (astralCase.get(codePoint) ?? 0);
  if (known !== 0) return known;
  const ch = String.fromCodePoint(codePoint);
  const flags = LOOKED_UP | (LOWER.test(ch) ? IS_LOWER : 0) | (UPPER.test(ch) ? IS_UPPER : 0) | (TITLE.test(ch) ? IS_TITLE : 0);
  if (codePoint < 0x10000) bmpCase[codePoint] = flags;
  else astralCase.set(codePoint, flags);
  return flags;
}

/** Whether `s` has a cased character and none of the `forbidden` case; `wanted` is the other. */
function allCased(s: string, wanted: number, forbidden: number): boolean {
  let cased = false;
  for (let i = 0, length = s.length; i < length; i++) {
    const code = charCodeAt.call(s, i);
    let flags: number;
    if (code < 0x80) flags = code >= 0x61 && code <= 0x7a ? IS_LOWER : code >= 0x41 && code <= 0x5a ? IS_UPPER : 0;
    else {
      const codePoint = codePointAt.call(s, i) as number;
      if (codePoint > 0xffff) i++;
      flags = caseOf(codePoint);
    }
    if (flags & (forbidden | IS_TITLE)) return false;
    if (flags & wanted) cased = true;
  }
  return cased;
}

/** `s.isupper()`: at least one cased character, and none lowercase or titlecase. */
export function pyIsUpper(s: string): boolean {
  return allCased(s, IS_UPPER, IS_LOWER);
}

/** `s.islower()`: at least one cased character, and none uppercase or titlecase. */
export function pyIsLower(s: string): boolean {
  return allCased(s, IS_LOWER, IS_UPPER);
}

const ALPHA = /^\p{L}+$/u;
const DIGIT = /^[\p{Nd}\u00b2\u00b3\u00b9\u2070-\u2079\u2080-\u2089\u2460-\u2468\u2474-\u247c\u2488-\u2490]+$/u;

export function pyIsAlpha(s: string): boolean {
  return ALPHA.test(s);
}

const ALNUM_CHAR = /[\p{L}\p{N}]/u;

/** `any(c.isalnum() for c in s)`: ASCII letters and digits decided without the regex. */
export function pyHasAlnumChar(s: string): boolean {
  for (let i = 0, length = s.length; i < length; i++) {
    const code = charCodeAt.call(s, i);
    if (code < 0x80) {
      if ((code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) return true;
    } else return ALNUM_CHAR.test(s.slice(i));
  }
  return false;
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
