import { stopwordSet } from '../data';
import { sentTokenize } from './punkt';
import { PY_B, PY_SPACE, PY_WORD, pySplit } from './py';

/**
 * Word tokenizers of the references: NLTK's `word_tokenize` (Punkt sentences, then the improved
 * Treebank tokenizer's regex passes) and `RegexpTokenizer(r"\w+")`, which counts words.
 */

type Rule = [RegExp, string];

const rule = (source: string, replacement: string, flags = ''): Rule => [new RegExp(source, `gu${flags}`), replacement];
const S = `[${PY_SPACE}]`;

const STARTING_QUOTES: Rule[] = [
  rule('([«“‘„]|[`]+)', ' $1 '),
  rule('^"', '``'),
  rule('(``)', ' $1 '),
  rule('([ (\\[{<])("|\'{2})', '$1 `` '),
  rule(`(')(?!re|ve|ll|m|t|s|d|n)([${PY_WORD}])${PY_B}`, '$1 $2', 'i'),
];

const PUNCTUATION: Rule[] = [
  rule(`([^.])(\\.)([\\])}>"'»”’ ]*)${S}*$`, '$1 $2 $3 '),
  rule('([:,])([^\\p{Nd}])', ' $1 $2'),
  rule('([:,])$', ' $1 '),
  rule('\\.{2,}', ' $& '),
  rule('[;@#$%&]', ' $& '),
  rule(`([^.])(\\.)([\\])}>"']*)${S}*$`, '$1 $2$3 '),
  rule('[?!]', ' $& '),
  rule("([^'])' ", "$1 ' "),
  rule('[*]', ' $& '),
];

const PARENS_BRACKETS = rule('[\\][(){}<>]', ' $& ');
const DOUBLE_DASHES = rule('--', ' -- ');

const ENDING_QUOTES: Rule[] = [
  rule('([»”’])', ' $1 '),
  rule("''", " '' "),
  rule('"', " '' "),
  rule("([^' ])('[sS]|'[mM]|'[dD]|') ", '$1 $2 '),
  rule("([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", '$1 $2 '),
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
  for (const [re, replacement] of rules) out = out.replace(re, replacement);
  return out;
}

/** `NLTKWordTokenizer().tokenize(sentence)`. */
export function treebankTokenize(sentence: string): string[] {
  let text = apply(sentence, STARTING_QUOTES);
  text = apply(text, PUNCTUATION);
  text = apply(text, [PARENS_BRACKETS, DOUBLE_DASHES]);
  text = ` ${text} `;
  text = apply(text, ENDING_QUOTES);
  text = apply(text, CONTRACTIONS);
  return pySplit(text);
}

/** `nltk.word_tokenize(text)`. */
export function wordTokenize(text: string): string[] {
  return sentTokenize(text).flatMap(treebankTokenize);
}

const WORD_RUN = new RegExp(`[${PY_WORD}]+`, 'gu');

/** `RegexpTokenizer(r"\w+").tokenize(text)`. */
export function wordRuns(text: string): string[] {
  return text.match(WORD_RUN) ?? [];
}

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
