import { stopwordSet } from '../data';
import { memo } from './memo';
import { sentTokenize } from './punkt';
import { isSpaceCode, PY_B, PY_SPACE, PY_WORD, pySplit } from './py';

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
  ...[...'.'].map((c) => [c, DOT] as const),
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

function charBits(sentence: string): number {
  let bits = 0;
  for (let i = 0; i < sentence.length; i++) {
    const code = sentence.charCodeAt(i);
    bits |= code < 128 ? (ASCII_BITS[code] as number) : (CHAR_BITS.get(sentence[i] as string) ?? 0);
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
      while (end > 0 && isSpaceCode(text.charCodeAt(end - 1))) end--;
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

/** The punctuation passes, then the brackets and double dashes. */
const PUNCTUATION: Pass[] = [
  finalPeriod(`])}>"'»”’ `, ' ', DOT),
  rule('([:,])([^\\p{Nd}])', ' $1 $2', COLON_COMMA),
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

function mayHaveContraction(text: string): boolean {
  const lower = text.toLowerCase();
  const probe = lower.includes('ſ') ? lower.replace(/ſ/g, 's') : lower;
  return CONTRACTION_NEEDLES.some((n) => probe.includes(n));
}

/** `NLTKWordTokenizer().tokenize(sentence)`. */
function treebankTokenizeOnce(sentence: string): string[] {
  const bits = charBits(sentence);
  let text = apply(sentence, STARTING_QUOTES, bits);
  text = apply(text, PUNCTUATION, bits);
  text = ` ${text} `;
  text = apply(text, ENDING_QUOTES, bits);
  if (mayHaveContraction(text)) text = apply(text, CONTRACTIONS, ALWAYS);
  return pySplit(text);
}

/** Memoized per sentence: the loose variants of a response share most of their sentences. */
export const treebankTokenize: (sentence: string) => readonly string[] = memo(treebankTokenizeOnce);

/** `nltk.word_tokenize(text)`; memoized, so the result is shared. */
export const wordTokenize: (text: string) => readonly string[] = memo((text) => {
  // A loop, not flatMap: V8's flatMap was a tenth of the tokenizer's time.
  const tokens: string[] = [];
  for (const sentence of sentTokenize(text)) for (const token of treebankTokenize(sentence)) tokens.push(token);
  return tokens;
});

const WORD_RUN = new RegExp(`[${PY_WORD}]+`, 'gu');

/** `RegexpTokenizer(r"\w+").tokenize(text)`; memoized, so the result is shared. */
export const wordRuns: (text: string) => readonly string[] = memo((text) => text.match(WORD_RUN) ?? []);

/** The references' `count_words`. */
export function countWords(text: string): number {
  return wordRuns(text).length;
}

/** The references' `count_stopwords`: `\w+` tokens whose lowercase form is an NLTK stop word. */
export function countStopwords(text: string): number {
  const stop = stopwordSet();
  let n = 0;
  for (const token of wordRuns(text)) if (stop.has(token.toLowerCase())) n++;
  return n;
}
