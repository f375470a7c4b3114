import { isSpaceCode, PY_SPACE } from './py';

// Characters are read as `charCodeAt.call(s, i)`: see rubrics/text/py.ts.
const charCodeAt = String.prototype.charCodeAt;

/**
 * Punkt's word tokenizer (`PunktLanguageVars.word_tokenize`) for one line. NLTK runs the regex
 * below; Punkt tokenizes the few words around every period, and running the regex was a third of
 * the sentence splitter's time, so this is the same regex as a hand-written scanner. The regex is
 * kept as its specification: test/if/text.test.ts checks the two against each other.
 */
const S = `[${PY_SPACE}]`;
const NS = `[^${PY_SPACE}]`;
const NON_WORD = `[)";}\\]*:@'({\\[!?]`;
const MULTI_CHAR = `(?:-{2,}|\\.{2,}|(?:\\.${S}){2,}\\.)`;
const WORD_START = `[^("\`{\\[:;&#*@)}\\]\\-,]`;

export const PUNKT_WORD_RE = new RegExp(
  `${MULTI_CHAR}|(?=${WORD_START})${NS}+?(?=${S}|$|${NON_WORD}|${MULTI_CHAR}|,(?=$|${S}|${NON_WORD}|${MULTI_CHAR}))|${NS}`,
  'gu',
);

const DASH = 0x2d;
const PERIOD = 0x2e;
const COMMA = 0x2c;

function codeSet(chars: string): Uint8Array {
  const set = new Uint8Array(128);
  for (const ch of chars) set[ch.charCodeAt(0)] = 1;
  return set;
}

/** NON_WORD and the characters WORD_START excludes; all ASCII. */
const NON_WORD_CHARS = codeSet(')";}]*:@\'({[!?');
const NOT_WORD_START = codeSet('("`{[:;&#*@)}]-,');

const isNonWord = (code: number): boolean => code < 128 && NON_WORD_CHARS[code] === 1;

/** Where MULTI_CHAR matched at `p` ends ("--", "...", ". . ."), or -1 when it does not match. */
function multiCharEnd(s: string, p: number): number {
  const code = charCodeAt.call(s, p);
  if (code === DASH && charCodeAt.call(s, p + 1) === DASH) {
    let q = p + 2;
    while (charCodeAt.call(s, q) === DASH) q++;
    return q;
  }
  if (code !== PERIOD) return -1;
  if (charCodeAt.call(s, p + 1) === PERIOD) {
    let q = p + 2;
    while (charCodeAt.call(s, q) === PERIOD) q++;
    return q;
  }
  // `(?:\.\s){2,}\.`: greedy repetitions, giving one back when no period follows them.
  let reps = 0;
  while (charCodeAt.call(s, p + 2 * reps) === PERIOD && p + 2 * reps + 1 < s.length && isSpaceCode(charCodeAt.call(s, p + 2 * reps + 1))) reps++;
  if (reps >= 2 && charCodeAt.call(s, p + 2 * reps) === PERIOD) return p + 2 * reps + 1;
  return reps >= 3 ? p + 2 * reps - 1 : -1;
}

/** The lookahead that ends a word at `q`. */
function endsWord(s: string, q: number): boolean {
  if (q >= s.length) return true;
  const code = charCodeAt.call(s, q);
  if (isSpaceCode(code) || isNonWord(code) || multiCharEnd(s, q) >= 0) return true;
  if (code !== COMMA) return false;
  const next = q + 1;
  return next >= s.length || isSpaceCode(charCodeAt.call(s, next)) || isNonWord(charCodeAt.call(s, next)) || multiCharEnd(s, next) >= 0;
}

/**
 * `PUNKT_WORD_RE`'s matches in `line`. UTF-16 units stand for code points: every character the
 * regex names is ASCII or BMP whitespace, and a word never ends inside a surrogate pair.
 */
export function punktWords(line: string): string[] {
  const words: string[] = [];
  let p = 0;
  while (p < line.length) {
    if (isSpaceCode(charCodeAt.call(line, p))) {
      p++;
      continue;
    }
    const end = punktWordEnd(line, p);
    words.push(line.slice(p, end));
    p = end;
  }
  return words;
}

/** Where the match of `PUNKT_WORD_RE` that starts at `p` (not whitespace) in `line` ends. */
export function punktWordEnd(line: string, p: number): number {
  const end = multiCharEnd(line, p);
  if (end >= 0) return end;
  const code = charCodeAt.call(line, p);
  if (code < 128 && NOT_WORD_START[code] === 1) return p + 1;
  let q = p + 1;
  while (!endsWord(line, q)) q++;
  return q;
}
