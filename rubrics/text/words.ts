import { stopwordSet } from '../data';
import { memo } from './memo';
import { sentTokenize } from './punkt';
import { PY_B, PY_SPACE, PY_WORD, pySplit } from './py';

/**
 * Word tokenizers of the references: NLTK's `word_tokenize` (Punkt sentences, then the improved
 * Treebank tokenizer's regex passes) and `RegexpTokenizer(r"\w+")`, which counts words.
 */

/** A regex pass, and a cheap test that it can match at all (most passes find nothing in a sentence). */
type Rule = [RegExp, string, ((text: string) => boolean)?];

const rule = (source: string, replacement: string, flags = '', mayMatch?: (text: string) => boolean): Rule => [
  new RegExp(source, `gu${flags}`),
  replacement,
  mayMatch,
];
const has =
  (...needles: string[]) =>
  (text: string): boolean =>
    needles.some((n) => text.includes(n));
const S = `[${PY_SPACE}]`;

const STARTING_QUOTES: Rule[] = [
  rule('([«“‘„]|[`]+)', ' $1 ', '', has('«', '“', '‘', '„', '`')),
  rule('^"', '``', '', (t) => t.startsWith('"')),
  rule('(``)', ' $1 ', '', has('``')),
  rule('([ (\\[{<])("|\'{2})', '$1 `` ', '', has('"', "''")),
  rule(`(')(?!re|ve|ll|m|t|s|d|n)([${PY_WORD}])${PY_B}`, '$1 $2', 'i', has("'")),
];

const PUNCTUATION: Rule[] = [
  rule(`([^.])(\\.)([\\])}>"'»”’ ]*)${S}*$`, '$1 $2 $3 ', '', has('.')),
  rule('([:,])([^\\p{Nd}])', ' $1 $2', '', has(':', ',')),
  rule('([:,])$', ' $1 ', '', has(':', ',')),
  rule('\\.{2,}', ' $& ', '', has('..')),
  rule('[;@#$%&]', ' $& '),
  rule(`([^.])(\\.)([\\])}>"']*)${S}*$`, '$1 $2$3 ', '', has('.')),
  rule('[?!]', ' $& '),
  rule("([^'])' ", "$1 ' ", '', has("' ")),
  rule('[*]', ' $& ', '', has('*')),
];

const PARENS_BRACKETS = rule('[\\][(){}<>]', ' $& ');
const DOUBLE_DASHES = rule('--', ' -- ');

const ENDING_QUOTES: Rule[] = [
  rule('([»”’])', ' $1 ', '', has('»', '”', '’')),
  rule("''", " '' ", '', has("''")),
  rule('"', " '' ", '', has('"')),
  rule("([^' ])('[sS]|'[mM]|'[dD]|') ", '$1 $2 ', '', has("'")),
  rule("([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", '$1 $2 ', '', has("'")),
];

const CONTRACTIONS: Rule[] = [
  ...[
    ['can', 'not'],
    ['d', "'ye"],
    ['gim', 'me'],
    ['gon', 'na'],
    ['got', 'ta'],
    ['lem', 'me'],
    ['more', "'n"],
  ].map(([a, b]) => rule(`${PY_B}(${a})(${b})${PY_B}`, ' $1 $2 ', 'i')),
  rule(`${PY_B}(wan)(na)(?=${S})`, ' $1 $2 ', 'i'),
  rule(` ('t)(is)${PY_B}`, ' $1 $2 ', 'i'),
  rule(` ('t)(was)${PY_B}`, ' $1 $2 ', 'i'),
];

function apply(text: string, rules: readonly Rule[]): string {
  let out = text;
  for (const [re, replacement, mayMatch] of rules) if (!mayMatch || mayMatch(out)) out = out.replace(re, replacement);
  return out;
}

/** The contractions, case-insensitively ("ſ" folds to "s" under the regexes' `i` flag, so here too). */
const CONTRACTION_NEEDLES = ['cannot', "d'ye", 'gimme', 'gonna', 'gotta', 'lemme', "more'n", 'wanna', "'tis", "'twas"];

function mayHaveContraction(text: string): boolean {
  const probe = text.toLowerCase().replace(/ſ/g, 's');
  return CONTRACTION_NEEDLES.some((n) => probe.includes(n));
}

/** `NLTKWordTokenizer().tokenize(sentence)`. */
function treebankTokenizeOnce(sentence: string): string[] {
  let text = apply(sentence, STARTING_QUOTES);
  text = apply(text, PUNCTUATION);
  text = apply(text, [PARENS_BRACKETS, DOUBLE_DASHES]);
  text = ` ${text} `;
  text = apply(text, ENDING_QUOTES);
  if (mayHaveContraction(text)) text = apply(text, CONTRACTIONS);
  return pySplit(text);
}

/** Memoized per sentence: the loose variants of a response share most of their sentences. */
export const treebankTokenize: (sentence: string) => readonly string[] = memo(treebankTokenizeOnce);

/** `nltk.word_tokenize(text)`; memoized, so the result is shared. */
export const wordTokenize: (text: string) => readonly string[] = memo((text) => sentTokenize(text).flatMap(treebankTokenize));

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
