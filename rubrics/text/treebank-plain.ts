/**
 * The Treebank word tokenizer (rubrics/text/words.ts) for a "plain" sentence: ASCII only, with no
 * quote, apostrophe or backtick. On such a sentence every regex pass only inserts spaces (none
 * replaces a character), and where each pass inserts them can be read off the sentence itself, so
 * two replaces and a split give the tokens. Most sentences of model responses are plain, and the
 * twenty-odd passes, each scanning and rebuilding the sentence, were most of `word_tokenize`'s
 * time. The passes stay the specification: test/if/text.test.ts holds this path to them on
 * generated sentences and on every sentence of the conformance sets.
 *
 * Where the passes split a plain sentence:
 *  - around `; @ # $ % & ? ! *` and the brackets `[ ] ( ) { } < >`;
 *  - around each run of two or more periods, and around the final period when neither a period
 *    precedes it nor anything but closing brackets and whitespace follows it;
 *  - around a colon or comma that a non-digit follows; that next character is consumed by the
 *    match, so it is not itself split ("a,,b" → "a", ",", ",b");
 *  - before a colon or comma that ends the sentence, unless the final period was split;
 *  - "--" pairs in a run of dashes, from its left ("---" → "--", "-").
 * A sentence that may hold a contraction without an apostrophe ("gonna", "cannot") is not plain:
 * those passes work on word boundaries and are left to the regexes.
 */

/** Any character that makes a sentence not plain: outside ASCII, or a quote, apostrophe or backtick. */
const NOT_PLAIN = /[^\x00-\x21\x23-\x26\x28-\x5f\x61-\x7f]/;

/** Doubled letters in every contraction that has no apostrophe (gonna, cannot, gimme, …). */
const DOUBLED = /nn|mm|tt/i;
const APOSTROPHE_FREE_CONTRACTIONS = /cannot|gimme|gonna|gotta|lemme|wanna/i;

/**
 * A colon or comma before a non-digit (or at the end), with the character after it when that is
 * another colon or comma: the match consumes it, so it stays joined to what follows.
 */
const COLON_COMMA = /([,:])(?![0-9])([,:]?)/g;
const SPLIT_OFF = /\.{2,}|--|[;@#$%&?!*[\](){}<>]/g;
/** Python's whitespace within ASCII: `str.split()` separators. */
const SPACE_RUN = /[\t-\r\x1c-\x20]+/;

const PERIOD = 0x2e;

/** Closers the final-period pass looks past, restricted to plain sentences: brackets and spaces. */
const isCloser = (code: number): boolean => code === 0x5d || code === 0x29 || code === 0x7d || code === 0x3e || code === 0x20;

/** Python whitespace within ASCII. */
const isAsciiSpace = (code: number): boolean => code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code >= 0x1c && code <= 0x1f);

function splitWords(text: string, tokens: string[]): void {
  for (const word of text.split(SPACE_RUN)) if (word !== '') tokens.push(word);
}

/** The tokens of a plain sentence, or undefined when the sentence is not plain. */
export function plainTreebankTokens(sentence: string): string[] | undefined {
  if (NOT_PLAIN.test(sentence) || (DOUBLED.test(sentence) && APOSTROPHE_FREE_CONTRACTIONS.test(sentence))) return undefined;
  // The final period: past trailing whitespace, then back over closers and spaces.
  let end = sentence.length;
  while (end > 0 && isAsciiSpace(sentence.charCodeAt(end - 1))) end--;
  let start = end;
  while (start > 0 && isCloser(sentence.charCodeAt(start - 1))) start--;
  const finalPeriod = start >= 2 && sentence.charCodeAt(start - 1) === PERIOD && sentence.charCodeAt(start - 2) !== PERIOD;
  const body = finalPeriod ? sentence.slice(0, start - 1) : sentence;
  const tokens: string[] = [];
  splitWords(body.replace(COLON_COMMA, ' $1 $2').replace(SPLIT_OFF, ' $& '), tokens);
  if (finalPeriod) {
    tokens.push('.');
    // What follows it is closing brackets, each split off, and whitespace.
    for (let i = start; i < end; i++) if (sentence.charCodeAt(i) !== 0x20) tokens.push(sentence[i] as string);
  }
  return tokens;
}
