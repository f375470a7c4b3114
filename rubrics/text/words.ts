import { stopwordSet } from '../data';
import { countByLines } from './lines';
import { memo } from './memo';
import { sentences, sentTokenize } from './punkt';
import { isSpaceCode, PY_B, PY_SPACE, PY_WORD, pySplit } from './py';
import { plainTreebankTokens } from './treebank-plain';

// Characters are read as `charCodeAt.call(s, i)`: see rubrics/text/py.ts.
const charCodeAt = String.prototype.charCodeAt;
const codePointAt = String.prototype.codePointAt;

/**
 * Word tokenizers of the references: NLTK's `word_tokenize` (Punkt sentences, then the improved
 * Treebank tokenizer's regex passes) and `RegexpTokenizer(r"\w+")`, which counts words.
 */

/**
 * The characters that the regex passes need, as bits. Each pass runs only when the sentence has
 * one of its characters: a sentence needs a handful of its twenty passes, and a pass that cannot
 * match still costs a scan. The bits are taken once, from the sentence as given; the passes only
 * insert spaces, and "``" / "''" for quotes, so those two are implied by the quotes they replace.
 */
const DOT = 1 << 0;
const COLON_COMMA = 1 << 1;
const SYMBOL = 1 << 2; // ; @ # $ % &
const QUESTION_BANG = 1 << 3;
const APOSTROPHE = 1 << 4;
const STAR = 1 << 5;
const BRACKET = 1 << 6;
const DASH = 1 << 7;
const QUOTE = 1 << 8;
const BACKTICK = 1 << 9;
const OPENING_QUOTE = 1 << 10; // « “ ‘ „
const CLOSING_QUOTE = 1 << 11; // » ” ’
const ALWAYS = -1;

const CHAR_BITS = new Map<string, number>([
  ['.', DOT],
  ...[...':,'].map((c) => [c, COLON_COMMA] as const),
  ...[...';@#$%&'].map((c) => [c, SYMBOL] as const),
  ...[...'?!'].map((c) => [c, QUESTION_BANG] as const),
  ["'", APOSTROPHE],
  ['*', STAR],
  ...[...'[](){}<>'].map((c) => [c, BRACKET] as const),
  ['-', DASH],
  ['"', QUOTE],
  ['`', BACKTICK],
  ...[...'«“‘„'].map((c) => [c, OPENING_QUOTE] as const),
  ...[...'»”’'].map((c) => [c, CLOSING_QUOTE] as const),
]);
const ASCII_BITS = new Uint16Array(128);
for (const [c, bit] of CHAR_BITS) if (c.charCodeAt(0) < 128) ASCII_BITS[c.charCodeAt(0)] = bit;

/** The quotes outside ASCII, by UTF-16 unit (they are all in the BMP). */
const OTHER_BITS = new Map([...CHAR_BITS].filter(([c]) => c.charCodeAt(0) >= 128).map(([c, bit]) => [c.charCodeAt(0), bit]));

function charBits(sentence: string): number {
  let bits = 0;
  for (let i = 0, length = sentence.length; i < length; i++) {
    const code = charCodeAt.call(sentence, i);
    bits |= code < 128 ? (ASCII_BITS[code] as number) : (OTHER_BITS.get(code) ?? 0);
  }
  if (bits & QUOTE) bits |= BACKTICK | APOSTROPHE;
  if (bits & APOSTROPHE) bits |= BACKTICK;
  return bits;
}

/** A pass over the text, and the characters it needs to change anything. */
interface Pass {
  needs: number;
  run(text: string): string;
}

/** A regex pass; `mayMatch` is an exact test, cheaper than the regex, that it can match. */
const rule = (source: string, replacement: string, needs: number, flags = '', mayMatch?: (text: string) => boolean): Pass => {
  const re = new RegExp(source, `gu${flags}`);
  return { needs, run: (text) => (!mayMatch || mayMatch(text) ? text.replace(re, replacement) : text) };
};
const S = `[${PY_SPACE}]`;

/**
 * The pass `([^.])(\.)([closers]*)\s*$` → `$1 $2${gap}$3 `, scanned back from the end of the text
 * rather than tried by the regex at every period: a final period that only closing brackets,
 * quotes and whitespace follow gets a space before it and one after what follows it.
 */
function finalPeriod(closers: string, gap: string, needs: number): Pass {
  const closing = new Set(closers);
  return {
    needs,
    run(text) {
      let end = text.length;
      while (end > 0 && isSpaceCode(charCodeAt.call(text, end - 1))) end--;
      let start = end;
      while (start > 0 && closing.has(text[start - 1] as string)) start--;
      // The period, and a character before it that is not a period.
      if (start < 2 || text[start - 1] !== '.' || text[start - 2] === '.') return text;
      // `[closers]*` is greedy: it takes closers (the space among them) past `end` too.
      let closed = start;
      while (closed < text.length && closing.has(text[closed] as string)) closed++;
      return `${text.slice(0, start - 1)} .${gap}${text.slice(start, closed)} `;
    },
  };
}

const STARTING_QUOTES: Pass[] = [
  rule('([«“‘„]|[`]+)', ' $1 ', OPENING_QUOTE | BACKTICK),
  rule('^"', '``', QUOTE, '', (t) => t.startsWith('"')),
  rule('(``)', ' $1 ', BACKTICK, '', (t) => t.includes('``')),
  rule('([ (\\[{<])("|\'{2})', '$1 `` ', QUOTE | APOSTROPHE),
  rule(`(')(?!re|ve|ll|m|t|s|d|n)([${PY_WORD}])${PY_B}`, '$1 $2', APOSTROPHE, 'i'),
];

const DIGIT = /^\p{Nd}$/u;

/**
 * The pass `([:,])([^\p{Nd}])` → ` $1 $2`, as a scan: a colon or comma followed by anything but a
 * digit gets a space on either side. As in the regex, that following character is consumed, so
 * it is not itself a colon or comma to space ("a,,b" → "a , ,b").
 */
function colonsAndCommas(): Pass {
  return {
    needs: COLON_COMMA,
    run(text) {
      let out = '';
      let copied = 0;
      for (let i = 0; i + 1 < text.length; i++) {
        const code = charCodeAt.call(text, i);
        if (code !== 0x3a && code !== 0x2c) continue;
        const next = codePointAt.call(text, i + 1) as number;
        const width = next > 0xffff ? 2 : 1;
        const isDigit = next < 0x80 ? next >= 0x30 && next <= 0x39 : DIGIT.test(String.fromCodePoint(next));
        if (isDigit) continue;
        out += `${text.slice(copied, i)} ${text[i] as string} ${text.slice(i + 1, i + 1 + width)}`;
        copied = i + 1 + width;
        i = copied - 1;
      }
      return copied === 0 ? text : out + text.slice(copied);
    },
  };
}

/** The punctuation passes, then the brackets and double dashes. */
const PUNCTUATION: Pass[] = [
  finalPeriod(`])}>"'»”’ `, ' ', DOT),
  colonsAndCommas(),
  rule('([:,])$', ' $1 ', COLON_COMMA, '', (t) => t.endsWith(':') || t.endsWith(',')),
  rule('\\.{2,}', ' $& ', DOT, '', (t) => t.includes('..')),
  rule('[;@#$%&]', ' $& ', SYMBOL),
  finalPeriod(`])}>"'`, '', DOT),
  rule('[?!]', ' $& ', QUESTION_BANG),
  rule("([^'])' ", "$1 ' ", APOSTROPHE),
  rule('[*]', ' $& ', STAR),
  rule('[\\][(){}<>]', ' $& ', BRACKET),
  rule('--', ' -- ', DASH),
];

const ENDING_QUOTES: Pass[] = [
  rule('([»”’])', ' $1 ', CLOSING_QUOTE),
  rule("''", " '' ", APOSTROPHE),
  rule('"', " '' ", QUOTE),
  rule("([^' ])('[sS]|'[mM]|'[dD]|') ", '$1 $2 ', APOSTROPHE),
  rule("([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", '$1 $2 ', APOSTROPHE),
];

const CONTRACTIONS: Pass[] = [
  ...[
    ['can', 'not'],
    ['d', "'ye"],
    ['gim', 'me'],
    ['gon', 'na'],
    ['got', 'ta'],
    ['lem', 'me'],
    ['more', "'n"],
  ].map(([a, b]) => rule(`${PY_B}(${a})(${b})${PY_B}`, ' $1 $2 ', ALWAYS, 'i')),
  rule(`${PY_B}(wan)(na)(?=${S})`, ' $1 $2 ', ALWAYS, 'i'),
  rule(` ('t)(is)${PY_B}`, ' $1 $2 ', ALWAYS, 'i'),
  rule(` ('t)(was)${PY_B}`, ' $1 $2 ', ALWAYS, 'i'),
];

function apply(text: string, passes: readonly Pass[], bits: number): string {
  let out = text;
  for (const pass of passes) if (pass.needs & bits) out = pass.run(out);
  return out;
}

/** The contractions, case-insensitively ("ſ" folds to "s" under the regexes' `i` flag, so here too). */
const CONTRACTION_NEEDLES = ['cannot', "d'ye", 'gimme', 'gonna', 'gotta', 'lemme', "more'n", 'wanna', "'tis", "'twas"];

const DOUBLED = /nn|mm|tt/i;

function mayHaveContraction(text: string): boolean {
  const lower = text.toLowerCase();
  const probe = lower.includes('ſ') ? lower.replace(/ſ/g, 's') : lower;
  for (const needle of CONTRACTION_NEEDLES) if (probe.includes(needle)) return true;
  return false;
}

/** `NLTKWordTokenizer().tokenize(sentence)`: one scan for a plain sentence, else the regex passes. */
function treebankTokenizeOnce(sentence: string): string[] {
  return plainTreebankTokens(sentence) ?? treebankByPasses(sentence);
}

/** `NLTKWordTokenizer().tokenize(sentence)` by its regex passes: the specification. */
export function treebankByPasses(sentence: string): string[] {
  const bits = charBits(sentence);
  let text = apply(sentence, STARTING_QUOTES, bits);
  text = apply(text, PUNCTUATION, bits);
  text = ` ${text} `;
  text = apply(text, ENDING_QUOTES, bits);
  // Every contraction has an apostrophe or a doubled n, m or t, which the passes never split.
  if ((bits & APOSTROPHE || DOUBLED.test(sentence)) && mayHaveContraction(text)) text = apply(text, CONTRACTIONS, ALWAYS);
  return pySplit(text);
}

/** Memoized per sentence: the loose variants of a response share most of their sentences. */
export const treebankTokenize: (sentence: string) => readonly string[] = memo(treebankTokenizeOnce, 'part');

/** `nltk.word_tokenize(text)`; memoized, so the result is shared. */
export const wordTokenize = memo((text): readonly string[] => {
  // A loop, not flatMap: V8's flatMap was a tenth of the tokenizer's time.
  const tokens: string[] = [];
  for (const sentence of sentTokenize(text)) for (const token of treebankTokenize(sentence)) tokens.push(token);
  return tokens;
});

/**
 * The first token of `wordTokenize(text)` that passes `test`, for checkers that stop at the first
 * bad one: the sentences after it are not tokenized.
 */
export function findWordToken(text: string, test: (token: string) => boolean): string | undefined {
  const known = wordTokenize.cached(text);
  if (known) return known.find(test);
  for (const sentence of sentences(text)) {
    // A loop over the sentence's array: a generator's `yield*` per token cost a tenth of the scan.
    const tokens = treebankTokenize(sentence);
    for (let i = 0, length = tokens.length; i < length; i++) if (test(tokens[i] as string)) return tokens[i];
  }
  return undefined;
}

/**
 * The first `head` and last `tail` tokens of `wordTokenize(text)` (all of them when there are
 * fewer), Treebank-tokenizing only the sentences at the two ends.
 */
export function tokensAtEnds(text: string, head: number, tail: number): { head: readonly string[]; tail: readonly string[] } {
  const known = wordTokenize.cached(text);
  if (known) return { head: known.slice(0, head), tail: known.slice(-tail) };
  const all = sentTokenize(text);
  const first: string[] = [];
  let i = 0;
  // Loops, not `push(...tokens)`: one sentence of a long response can hold more tokens than a call
  // may take arguments.
  for (; i < all.length && first.length < head; i++) for (const t of treebankTokenize(all[i] as string)) first.push(t);
  // The tail is gathered backwards, sentence by sentence, and reversed once.
  const reversed: string[] = [];
  for (let j = all.length - 1; j >= i && reversed.length < tail; j--) {
    const tokens = treebankTokenize(all[j] as string);
    for (let k = tokens.length - 1; k >= 0; k--) reversed.push(tokens[k] as string);
  }
  // Short of `tail`: every sentence after the head's is in the tail, so the head's tokens precede them.
  if (reversed.length < tail) for (let k = first.length - 1; k >= 0; k--) reversed.push(first[k] as string);
  const last = reversed.slice(0, tail).reverse();
  return { head: first.slice(0, head), tail: last };
}

const WORD_RUN = new RegExp(`[${PY_WORD}]+`, 'gu');

/** `RegexpTokenizer(r"\w+").tokenize(text)`; memoized, so the result is shared. */
export const wordRuns: (text: string) => readonly string[] = memo((text) => text.match(WORD_RUN) ?? []);

const WORD_CHAR = new RegExp(`^[${PY_WORD}]$`, 'u');
const IS_WORD = 1;
const IS_NOT_WORD = 2;
/** A high surrogate: the code point it starts decides. */
const PAIRED = 3;
/**
 * Whether each BMP code unit is in `\w`, looked up once (0 until then): a run scan tests every
 * character of a response, and a Unicode-property regex per character would cost more than the
 * regex scan did.
 */
const bmpWord = new Uint8Array(0x10000);
bmpWord.fill(PAIRED, 0xd800, 0xdc00);

/** Python's `\w` for one code point (a lone surrogate is not one). */
function isWordCodePoint(codePoint: number): boolean {
  if (codePoint > 0xffff) return WORD_CHAR.test(String.fromCodePoint(codePoint));
  let known = bmpWord[codePoint] as number;
  if (known === 0 || known === PAIRED) {
    known = WORD_CHAR.test(String.fromCharCode(codePoint)) ? IS_WORD : IS_NOT_WORD;
    if (codePoint < 0xd800 || codePoint > 0xdbff) bmpWord[codePoint] = known;
  }
  return known === IS_WORD;
}
for (let code = 0; code < 0x80; code++) isWordCodePoint(code);

/** Python's `\w` for the character at `i` (of two units when it is a surrogate pair). */
function isWordAt(text: string, i: number): boolean {
  const known = bmpWord[charCodeAt.call(text, i)] as number;
  if (known === IS_WORD || known === IS_NOT_WORD) return known === IS_WORD;
  return isWordCodePoint(codePointAt.call(text, i) as number);
}

/** The UTF-16 length of the character at `i`. */
const widthAt = (text: string, i: number): number => ((codePointAt.call(text, i) as number) > 0xffff ? 2 : 1);

/** Python's `\w` for the character that ends at `end` (exclusive), if any. */
function isWordBefore(text: string, end: number): boolean {
  if (end === 0) return false;
  const low = charCodeAt.call(text, end - 1);
  if (low >= 0xdc00 && low <= 0xdfff && end >= 2) {
    const high = charCodeAt.call(text, end - 2);
    if (high >= 0xd800 && high <= 0xdbff) return isWordCodePoint(codePointAt.call(text, end - 2) as number);
  }
  return isWordAt(text, end - 1);
}

const isAsciiUpper = (code: number): boolean => code >= 0x41 && code <= 0x5a;
const isAsciiLower = (code: number): boolean => code >= 0x61 && code <= 0x7a;

/**
 * The runs of `wordRuns(text)` that are an ASCII capital and ASCII lowercase letters ("Emma"), in
 * order: for a checker looking for words of that shape, which are a few of a response's runs,
 * found from the capitals alone.
 */
export function capitalizedWordRuns(text: string): string[] {
  const runs: string[] = [];
  for (let i = 0, length = text.length; i < length; i++) {
    if (!isAsciiUpper(charCodeAt.call(text, i)) || isWordBefore(text, i)) continue;
    let end = i + 1;
    while (end < text.length && isAsciiLower(charCodeAt.call(text, end))) end++;
    if (end > i + 1 && !(end < text.length && isWordAt(text, end))) runs.push(text.slice(i, end));
    i = end - 1;
  }
  return runs;
}

/**
 * `wordRuns(text).length`: the characters in `\w` that follow one that is not. Counted without
 * branching on each character's class where it is ASCII: words and gaps alternate every few
 * characters, and a branch on them mispredicts about as often.
 */
function countRuns(text: string): number {
  let n = 0;
  let previous = 0;
  for (let i = 0, length = text.length; i < length; i++) {
    const code = charCodeAt.call(text, i);
    let word = (bmpWord[code] as number) & 1;
    if (code >= 0x80) {
      word = isWordAt(text, i) ? 1 : 0;
      i += widthAt(text, i) - 1;
    }
    n += word & (previous ^ 1);
    previous = word;
  }
  return n;
}

/** The references' `count_words`; a \w run never crosses a newline, so it is counted by lines. */
export const countWords: (text: string) => number = countByLines(countRuns);

/**
 * The stop words made of ASCII word characters, as a trie over those characters with uppercase
 * letters folded (`str.lower()` of ASCII folds A-Z alone), walked as each run is scanned: a run
 * is not built, nor its lowercase form. A node's children are at `next[node * SYMBOLS + symbol]`;
 * node 0 is the root and node 1 a dead end, where a run that is no stop word goes.
 */
interface StopwordTrie {
  next: Int32Array;
  final: Uint8Array;
}

const ROOT = 0;
const DEAD = 1;
/** Each ASCII word character's symbol (A-Z as a-z); -1 for the rest. */
const TRIE_SYMBOL = new Int8Array(128).fill(-1);
let symbols = 0;
for (let code = 0; code < 0x80; code++) if (bmpWord[code] === IS_WORD && !(code >= 0x41 && code <= 0x5a)) TRIE_SYMBOL[code] = symbols++;
for (let code = 0x41; code <= 0x5a; code++) TRIE_SYMBOL[code] = TRIE_SYMBOL[code + 0x20] as number;
const SYMBOLS = symbols;

let trie: StopwordTrie | undefined;

function stopwordTrie(): StopwordTrie {
  if (trie) return trie;
  // A stop word with a character outside ASCII `\w` ("don't") equals no run's lowercase form.
  const words = [...stopwordSet()].filter((w) => /^[a-z0-9_]+$/.test(w));
  const size = 2 + words.reduce((n, w) => n + w.length, 0);
  const next = new Int32Array(size * SYMBOLS).fill(DEAD);
  const final = new Uint8Array(size);
  let nodes = 2;
  for (const word of words) {
    let node = ROOT;
    for (let i = 0, length = word.length; i < length; i++) {
      const at = node * SYMBOLS + (TRIE_SYMBOL[charCodeAt.call(word, i)] as number);
      if (next[at] === DEAD) next[at] = nodes++;
      node = next[at] as number;
    }
    final[node] = 1;
  }
  trie = { next, final };
  return trie;
}

/**
 * `count_stopwords` of one text. A run with a character outside ASCII is looked up by its
 * `toLowerCase()` form (the Kelvin sign lowercases to "k"): the scan goes back to the run's start
 * (only ASCII characters precede the first such character) and on to its end.
 */
function countStopwordRuns(text: string): number {
  const { next, final } = stopwordTrie();
  let n = 0;
  let node = ROOT;
  for (let i = 0, length = text.length; i < length; i++) {
    const code = charCodeAt.call(text, i);
    if (code < 0x80) {
      const symbol = TRIE_SYMBOL[code] as number;
      if (symbol < 0) {
        n += final[node] as number;
        node = ROOT;
      } else node = next[node * SYMBOLS + symbol] as number;
      continue;
    }
    if (!isWordAt(text, i)) {
      n += final[node] as number;
      node = ROOT;
      i += widthAt(text, i) - 1;
      continue;
    }
    let start = i;
    while (start > 0 && (TRIE_SYMBOL[charCodeAt.call(text, start - 1)] ?? -1) >= 0) start--;
    let end = i;
    while (end < text.length && isWordAt(text, end)) end += widthAt(text, end);
    if (stopwordSet().has(text.slice(start, end).toLowerCase())) n++;
    node = ROOT;
    i = end - 1;
  }
  return n + (final[node] as number);
}

/** The references' `count_stopwords`: `\w+` tokens whose lowercase form is an NLTK stop word. */
export const countStopwords: (text: string) => number = countByLines(countStopwordRuns);
