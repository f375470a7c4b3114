import { PY_B, PY_WORD } from './py';

// Characters are read as `charCodeAt.call(s, i)`: see rubrics/text/py.ts.
const charCodeAt = String.prototype.charCodeAt;

/**
 * The Treebank word tokenizer (rubrics/text/words.ts) for a "plain" sentence: ASCII only, with no
 * backtick. Without quotes or apostrophes every regex pass only inserts spaces, and where each
 * inserts them can be read off the sentence itself, so one scan gives the tokens; quotes and
 * apostrophes add the few passes that handle them, run in the tokenizer's order. Most
 * sentences of model responses are plain, and the twenty-odd passes, each scanning and rebuilding
 * the sentence, were most of `word_tokenize`'s time. The passes stay the specification:
 * test/if/text.test.ts holds this path to them on generated sentences and on every sentence of
 * the conformance sets.
 *
 * Where the passes split a plain sentence without quotes or apostrophes:
 *  - around `; @ # $ % & ? ! *` and the brackets `[ ] ( ) { } < >`;
 *  - around each run of two or more periods, and around the final period when neither a period
 *    precedes it nor anything but closing brackets and whitespace follows it;
 *  - around a colon or comma that a non-digit follows; that next character is consumed by the
 *    match, so it is not itself split ("a,,b" → "a", ",", ",b");
 *  - before a colon or comma that ends the sentence, unless the final period was split;
 *  - "--" pairs in a run of dashes, from its left ("---" → "--", "-").
 * Quotes and apostrophes are split by their own passes (below). A sentence with two apostrophes
 * in a row (a quote, rewritten as "``" or "''") or one that may hold a contraction the passes
 * split ("gonna", "cannot", "'tis") is not plain: it is left to the regexes.
 */

/** Any character that makes a sentence not plain: outside ASCII, or a backtick. */
const NOT_PLAIN = /[^\x00-\x5f\x61-\x7f]/;

/** Doubled letters in every contraction that has no apostrophe (gonna, cannot, gimme, …). */
const DOUBLED = /nn|mm|tt/i;
const APOSTROPHE_FREE_CONTRACTIONS = /cannot|gimme|gonna|gotta|lemme|wanna/i;
/** Every contraction the passes split, for a sentence with a quote or an apostrophe. */
const CONTRACTIONS = /cannot|d'ye|gimme|gonna|gotta|lemme|more'n|wanna|'tis|'twas/i;

/**
 * The quote and apostrophe passes, as the Treebank tokenizer writes them and in its order: a
 * double quote that starts the sentence or follows a space or opening bracket becomes "``", and
 * "'a" → "' a", first; "x' " → "x ' " after the sentence-end punctuation is split and before the
 * brackets and dashes are; every other double quote becomes "''", then "it's " → "it 's ",
 * "can't " → "ca n't " and "dogs' " → "dogs ' ", last, on the sentence padded with spaces.
 */
const OPENING_QUOTE = /([ (\[{<])"/g;
const CLOSING_QUOTE = /"/g;
const OPENING_APOSTROPHE = new RegExp(`(')(?!re|ve|ll|m|t|s|d|n)([${PY_WORD}])${PY_B}`, 'giu');
const APOSTROPHE_BEFORE_SPACE = /([^'])' /g;
const CLOSING_APOSTROPHE = /([^' ])('[sS]|'[mM]|'[dD]|') /g;
const CLOSING_CLITIC = /([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) /g;

/**
 * A colon or comma before a non-digit (or at the end), with the character after it when that is
 * another colon or comma: the match consumes it, so it stays joined to what follows.
 */
const COLON_COMMA = /([,:])(?![0-9])([,:]?)/g;
/** What a sentence with apostrophes splits off before "x' " is split, and after. */
const SPLIT_OFF_EARLY = /\.{2,}|[;@#$%&?!]/g;
const SPLIT_OFF_LATE = /--|[*[\](){}<>]/g;
/** Python's whitespace within ASCII: `str.split()` separators. */
const SPACE_RUN = /[\t-\r\x1c-\x20]+/;

const PERIOD = 0x2e;

/** Closers the final-period pass looks past, within plain sentences: brackets, quotes, spaces. */
const isCloser = (code: number): boolean =>
  code === 0x5d || code === 0x29 || code === 0x7d || code === 0x3e || code === 0x27 || code === 0x22 || code === 0x20;

/** Python whitespace within ASCII. */
const isAsciiSpace = (code: number): boolean => code === 0x20 || (code >= 0x09 && code <= 0x0d) || (code >= 0x1c && code <= 0x1f);

function splitWords(text: string, tokens: string[]): void {
  for (const word of text.split(SPACE_RUN)) if (word !== '') tokens.push(word);
}

const COMMA = 0x2c;
const COLON = 0x3a;
const DASH = 0x2d;

/** The characters split off on their own: `; @ # $ % & ? ! *` and the brackets. */
const SPLIT_CHAR = new Uint8Array(128);
for (const ch of ';@#$%&?!*[](){}<>') SPLIT_CHAR[ch.charCodeAt(0)] = 1;

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;

const QUOTE = 0x22;

/** ASCII characters that are only ever part of a token: none of the ones the scan splits at. */
const WORD_PART = 1;
const SCAN_CLASS = new Uint8Array(128).fill(WORD_PART);
for (const ch of ',:.-"\x1c\x1d\x1e\x1f \t\n\v\f\r') SCAN_CLASS[ch.charCodeAt(0)] = 0;
for (let code = 0; code < 128; code++) if (SPLIT_CHAR[code] === 1) SCAN_CLASS[code] = 0;

/**
 * Whether the double quote at `i` opens a quotation as the Treebank passes decide: at the start,
 * or after a space or an opening bracket. The start is rewritten first, with a space after the
 * "``", so a second quote right after it opens too.
 */
function opensQuote(text: string, i: number): boolean {
  if (i === 0 || (i === 1 && charCodeAt.call(text, 0) === QUOTE)) return true;
  const before = charCodeAt.call(text, i - 1);
  return before === 0x20 || before === 0x28 || before === 0x5b || before === 0x7b || before === 0x3c;
}

/**
 * The tokens of `text.slice(0, end)` with apostrophes only inside words (or none), as the spacing
 * passes and a split leave them, less the clitics split off last, read off in one scan: a
 * whitespace run ends a token; a colon or comma before a non-digit (or at `end`) is a token, and
 * a colon or comma right after it starts the next token; a run of periods, a "--" pair and each
 * SPLIT_CHAR are tokens; a double quote is one, "``" or "''". Building the spaced text over and
 * over and splitting it was most of the tokenizer's time.
 */
function scanUnquoted(text: string, end: number, tokens: string[]): void {
  let start = -1;
  for (let i = 0; i < end; i++) {
    const code = charCodeAt.call(text, i);
    // Most characters are letters or digits, decided by one lookup.
    if (code >= 128 || SCAN_CLASS[code] === WORD_PART) {
      if (start < 0) start = i;
      continue;
    }
    let width: number;
    if (code === QUOTE) {
      if (start >= 0) tokens.push(text.slice(start, i));
      tokens.push(opensQuote(text, i) ? '``' : "''");
      start = -1;
      continue;
    }
    if (code === COMMA || code === COLON) {
      if (i + 1 < end && isDigit(charCodeAt.call(text, i + 1))) {
        if (start < 0) start = i;
        continue;
      }
      width = 1;
    } else if (code === PERIOD) {
      width = 1;
      while (i + width < end && charCodeAt.call(text, i + width) === PERIOD) width++;
      if (width === 1) {
        if (start < 0) start = i;
        continue;
      }
    } else if (code === DASH && i + 1 < end && charCodeAt.call(text, i + 1) === DASH) width = 2;
    else if (code < 128 && SPLIT_CHAR[code] === 1) width = 1;
    else {
      if (isAsciiSpace(code)) {
        if (start >= 0) tokens.push(text.slice(start, i));
        start = -1;
      } else if (start < 0) start = i;
      continue;
    }
    if (start >= 0) tokens.push(text.slice(start, i));
    tokens.push(text.slice(i, i + width));
    i += width - 1;
    start = -1;
    // The colon or comma the match consumed begins the next token.
    if ((code === COMMA || code === COLON) && i + 1 < end) {
      const next = charCodeAt.call(text, i + 1);
      if (next === COMMA || next === COLON) start = ++i;
    }
  }
  if (start >= 0) tokens.push(text.slice(start, end));
}

const APOSTROPHE = 0x27;
const isAsciiLetter = (code: number): boolean => (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
const isAsciiWord = (code: number): boolean => isAsciiLetter(code) || isDigit(code) || code === 0x5f;
/** The letters OPENING_APOSTROPHE's lookahead refuses after an apostrophe, in either case. */
const CLITIC_INITIAL = new Set([...'mtsdnMTSDN'].map((c) => c.charCodeAt(0)));

/**
 * Whether every apostrophe of a sentence (one without double quotes) is inside a word: between
 * two ASCII letters, the one after it followed by a word character or itself one OPENING_APOSTROPHE
 * leaves alone ("it's", "don't", "o'clock", "you're"), in a word that a space or the end of the
 * sentence ends. Then no pass puts a space right after an apostrophe, so neither OPENING_APOSTROPHE nor APOSTROPHE_BEFORE_SPACE splits anything, and the
 * passes give the tokens of the sentence without quotes, less the clitics the last two passes
 * split off the tokens that end in one.
 */
function apostrophesInWords(sentence: string): boolean {
  for (let p = sentence.indexOf("'"); p >= 0; p = sentence.indexOf("'", p + 1)) {
    if (!isAsciiLetter(charCodeAt.call(sentence, p - 1)) || !isAsciiLetter(charCodeAt.call(sentence, p + 1))) return false;
    if (!(isAsciiWord(charCodeAt.call(sentence, p + 2)) || CLITIC_INITIAL.has(charCodeAt.call(sentence, p + 1)))) return false;
    // The clitic passes split only before " ": a word that other whitespace ends is left to them.
    let q = p + 2;
    while (q < sentence.length && !isAsciiSpace(charCodeAt.call(sentence, q))) q++;
    if (q < sentence.length && charCodeAt.call(sentence, q) !== 0x20) return false;
  }
  return true;
}

const CLOSING_CLITICS = new Set(["'ll", "'LL", "'re", "'RE", "'ve", "'VE", "n't", "N'T"]);

/**
 * CLOSING_APOSTROPHE then CLOSING_CLITIC on tokens whose apostrophes are all inside words: each
 * matches only before a space, so at the end of a token, after a character that is not an
 * apostrophe; "'s", "'m" or "'d" is split off first, then "'ll", "n't" and the like from what is
 * left ("you'll's" → "you", "'ll", "'s").
 */
function splitClitics(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (const token of tokens) {
    let rest = token;
    let last: string | undefined;
    const n = rest.length;
    if (n >= 3 && charCodeAt.call(rest, n - 2) === APOSTROPHE && 'sSmMdD'.includes(rest[n - 1] as string) && charCodeAt.call(rest, n - 3) !== APOSTROPHE) {
      last = rest.slice(n - 2);
      rest = rest.slice(0, n - 2);
    }
    const m = rest.length;
    if (m >= 4 && charCodeAt.call(rest, m - 4) !== APOSTROPHE && CLOSING_CLITICS.has(rest.slice(m - 3))) {
      out.push(rest.slice(0, m - 3), rest.slice(m - 3));
    } else out.push(rest);
    if (last !== undefined) out.push(last);
  }
  return out;
}

/**
 * The tokens of a plain sentence whose apostrophes, if any, are inside words, by one scan (their
 * clitics not yet split off); undefined when a quotation opens among the closers after the final
 * period, which then are not all closers to the passes.
 */
function scanPlain(sentence: string): string[] | undefined {
  // The final period: past trailing whitespace, then back over closers and spaces.
  let end = sentence.length;
  while (end > 0 && isAsciiSpace(charCodeAt.call(sentence, end - 1))) end--;
  let start = end;
  while (start > 0 && isCloser(charCodeAt.call(sentence, start - 1))) start--;
  const finalPeriod = start >= 2 && charCodeAt.call(sentence, start - 1) === PERIOD && charCodeAt.call(sentence, start - 2) !== PERIOD;
  const tokens: string[] = [];
  scanUnquoted(sentence, finalPeriod ? start - 1 : sentence.length, tokens);
  if (!finalPeriod) return tokens;
  tokens.push('.');
  // What follows it is closing brackets and quotes, each split off, and whitespace.
  for (let i = start; i < end; i++) {
    const code = charCodeAt.call(sentence, i);
    if (code === QUOTE) {
      if (opensQuote(sentence, i)) return undefined;
      tokens.push("''");
    } else if (code !== 0x20) tokens.push(sentence[i] as string);
  }
  return tokens;
}

/** The tokens of a plain sentence, or undefined when the sentence is not plain. */
export function plainTreebankTokens(sentence: string): string[] | undefined {
  if (NOT_PLAIN.test(sentence)) return undefined;
  const quotes = sentence.includes('"');
  // `quoted`: the quote and apostrophe passes have work to do.
  const quoted = quotes || sentence.includes("'");
  // Two apostrophes in a row are a quote, which the passes rewrite as "``" or "''".
  if (quoted ? sentence.includes("''") || CONTRACTIONS.test(sentence) : DOUBLED.test(sentence) && APOSTROPHE_FREE_CONTRACTIONS.test(sentence)) {
    return undefined;
  }
  // Apostrophes inside words only change the tokens that end in a clitic.
  const apostrophes = quoted && sentence.includes("'");
  const clitics = apostrophes && apostrophesInWords(sentence);
  if (!apostrophes || clitics) {
    const tokens = scanPlain(sentence);
    if (tokens) return clitics ? splitClitics(tokens) : tokens;
  }
  let text = sentence;
  if (quotes) text = (text.startsWith('"') ? ` \`\` ${text.slice(1)}` : text).replace(OPENING_QUOTE, '$1 `` ');
  text = text.replace(OPENING_APOSTROPHE, '$1 $2');
  // The final period: past trailing whitespace, then back over closers and spaces.
  let end = text.length;
  while (end > 0 && isAsciiSpace(charCodeAt.call(text, end - 1))) end--;
  let start = end;
  while (start > 0 && isCloser(charCodeAt.call(text, start - 1))) start--;
  const finalPeriod = start >= 2 && charCodeAt.call(text, start - 1) === PERIOD && charCodeAt.call(text, start - 2) !== PERIOD;
  const bodyEnd = finalPeriod ? start - 1 : text.length;
  const tokens: string[] = [];
  // The passes in order: the final period spaced, with the closers after it kept as they are and
  // the whitespace after them dropped, as that pass does.
  let spaced = text.slice(0, bodyEnd).replace(COLON_COMMA, ' $1 $2').replace(SPLIT_OFF_EARLY, ' $& ');
  if (finalPeriod) {
    let closed = start;
    while (closed < text.length && isCloser(charCodeAt.call(text, closed))) closed++;
    spaced = `${spaced} . ${text.slice(start, closed)} `;
  }
  spaced = ` ${spaced.replace(APOSTROPHE_BEFORE_SPACE, "$1 ' ").replace(SPLIT_OFF_LATE, ' $& ')} `;
  if (quotes) spaced = spaced.replace(CLOSING_QUOTE, " '' ");
  splitWords(spaced.replace(CLOSING_APOSTROPHE, '$1 $2 ').replace(CLOSING_CLITIC, '$1 $2 '), tokens);
  return tokens;
}
