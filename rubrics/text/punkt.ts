import { punktParameters } from '../data';
import { memo } from './memo';
import { isSpaceCode, PY_SPACE, PY_WORD, pyRstrip, pyStrip } from './py';
import { punktWordEnd, punktWords } from './punkt-words';

// Characters are read as `charCodeAt.call(s, i)`: see rubrics/text/py.ts.
const charCodeAt = String.prototype.charCodeAt;

/**
 * NLTK's Punkt sentence tokenizer (`nltk.sent_tokenize`, English), run with the trained English
 * parameters from rubrics/data. The IF references count sentences with it, so its decisions —
 * abbreviations, initials, ordinals, the orthographic heuristic, boundary realignment — are part of
 * what a constraint means and are reproduced step by step.
 */

const S = `[${PY_SPACE}]`;
const NS = `[^${PY_SPACE}]`;
const NON_WORD = `[)";}\\]*:@'({\\[!?]`;
/**
 * A sentence-end character, the punctuation or whitespace-and-token after it (groups 1 and 2).
 * `nextPeriod` scans for it by hand; the regex is the specification the tests hold it to.
 */
export const PERIOD_CONTEXT_RE = new RegExp(`[.?!](?=(${NON_WORD}|${S}+(${NS}+)))`, 'gu');
/** Python's MULTILINE `$` is before "\n" only; JavaScript's would also stop before "\r". */
const REALIGN_RE = new RegExp(`^["')\\]}]+?(?:${S}+|(?=--)|(?=\\n|(?![\\s\\S])))`, 'u');

/** The NON_WORD characters, by UTF-16 unit. */
const NON_WORD_AFTER = new Set([...')";}]*:@\'({[!?'].map((c) => c.charCodeAt(0)));

const CLOSERS = new Set([...'"\')]}'].map((c) => c.charCodeAt(0)));

const NUMERIC_RE = /^-?[.,]?\p{Nd}[\p{Nd},.-]*\.?$/u;
const LETTER = `[${PY_WORD.replace('\\p{N}', '\\p{Nl}\\p{No}')}]`;
const INITIAL_RE = new RegExp(`^${LETTER}\\.$`, 'u');
const UPPER_RE = /^\p{Uppercase}/u;
const LOWER_RE = /^\p{Lowercase}/u;

const ORTHO_BEG_UC = 1 << 1;
const ORTHO_MID_UC = 1 << 2;
const ORTHO_UNK_UC = 1 << 3;
const ORTHO_BEG_LC = 1 << 4;
const ORTHO_MID_LC = 1 << 5;
const ORTHO_UNK_LC = 1 << 6;
const ORTHO_UC = ORTHO_BEG_UC | ORTHO_MID_UC | ORTHO_UNK_UC;
const ORTHO_LC = ORTHO_BEG_LC | ORTHO_MID_LC | ORTHO_UNK_LC;

interface Params {
  abbrevTypes: ReadonlySet<string>;
  collocations: ReadonlySet<string>;
  sentStarters: ReadonlySet<string>;
  orthoContext: ReadonlyMap<string, number>;
}

let params: Params | undefined;

function loadParams(): Params {
  if (params) return params;
  const raw = punktParameters();
  params = {
    abbrevTypes: new Set(raw.abbrev_types),
    collocations: new Set(raw.collocations.map(([a, b]) => `${a}\u0000${b}`)),
    sentStarters: new Set(raw.sent_starters),
    orthoContext: new Map(Object.entries(raw.ortho_context)),
  };
  return params;
}

/** The ASCII-only cases of the tests below, which are most tokens, without a regex. */
function startsUpper(tok: string): boolean {
  const code = charCodeAt.call(tok, 0);
  return code < 0x80 ? code >= 0x41 && code <= 0x5a : UPPER_RE.test(tok);
}

function startsLower(tok: string): boolean {
  const code = charCodeAt.call(tok, 0);
  return code < 0x80 ? code >= 0x61 && code <= 0x7a : LOWER_RE.test(tok);
}

/** NUMERIC_RE needs "-", ".", "," or a digit first. */
function isNumeric(lower: string): boolean {
  const code = charCodeAt.call(lower, 0);
  if (code < 0x80 && !(code >= 0x30 && code <= 0x39) && code !== 0x2d && code !== 0x2e && code !== 0x2c) return false;
  return NUMERIC_RE.test(lower);
}

class Token {
  readonly type: string;
  readonly periodFinal: boolean;
  readonly firstUpper: boolean;
  readonly firstLower: boolean;
  sentbreak = false;
  abbr = false;
  ellipsis = false;

  constructor(readonly tok: string) {
    const lower = tok.toLowerCase();
    this.type = isNumeric(lower) ? '##number##' : lower;
    this.periodFinal = tok.endsWith('.');
    this.firstUpper = startsUpper(tok);
    this.firstLower = startsLower(tok);
  }

  get typeNoPeriod(): string {
    return this.type.length > 1 && this.type.endsWith('.') ? this.type.slice(0, -1) : this.type;
  }

  get typeNoSentperiod(): string {
    return this.sentbreak ? this.typeNoPeriod : this.type;
  }

  get isInitial(): boolean {
    // One character and a period: two UTF-16 units, or three for an astral letter.
    return this.tok.length <= 3 && INITIAL_RE.test(this.tok);
  }

  get isEllipsis(): boolean {
    const tok = this.tok;
    if (tok.length < 2) return false;
    for (let i = 0, length = tok.length; i < length; i++) if (charCodeAt.call(tok, i) !== 0x2e) return false;
    return true;
  }
}

function tokenizeLine(line: string, tokens: Token[]): void {
  for (const word of punktWords(line)) tokens.push(new Token(word));
}

/**
 * Punkt tokenizes line by line. Only a multi-character run such as ". . ." can cross a newline,
 * so a context without one (nearly all) is tokenized whole; a blank line has no tokens.
 */
function tokenizeWords(text: string): Token[] {
  const tokens: Token[] = [];
  if (!text.includes('\n')) tokenizeLine(text, tokens);
  else for (const line of text.split('\n')) if (pyStrip(line) !== '') tokenizeLine(line, tokens);
  return tokens;
}

function firstPass(token: Token, p: Params): void {
  const tok = token.tok;
  if (tok === '.' || tok === '?' || tok === '!') token.sentbreak = true;
  else if (token.isEllipsis) token.ellipsis = true;
  else if (token.periodFinal && !tok.endsWith('..')) {
    const stem = tok.slice(0, -1).toLowerCase();
    const dash = stem.lastIndexOf('-');
    const lastPart = dash < 0 ? stem : stem.slice(dash + 1);
    if (p.abbrevTypes.has(stem) || p.abbrevTypes.has(lastPart)) token.abbr = true;
    else token.sentbreak = true;
  }
}

type Ortho = true | false | 'unknown';

function orthoHeuristic(token: Token, p: Params): Ortho {
  // Python's `tok in ";:,.!?"` is a substring test.
  if (';:,.!?'.includes(token.tok)) return false;
  const context = p.orthoContext.get(token.typeNoSentperiod) ?? 0;
  if (token.firstUpper && context & ORTHO_LC && !(context & ORTHO_MID_UC)) return true;
  if (token.firstLower && (context & ORTHO_UC || !(context & ORTHO_BEG_LC))) return false;
  return 'unknown';
}

function secondPass(t1: Token, t2: Token, p: Params): void {
  if (!t1.periodFinal) return;
  const typ = t1.typeNoPeriod;
  const nextTyp = t2.typeNoSentperiod;
  const initial = t1.isInitial;

  if (p.collocations.has(`${typ}\u0000${nextTyp}`)) {
    t1.sentbreak = false;
    t1.abbr = true;
    return;
  }
  if ((t1.abbr || t1.ellipsis) && !initial) {
    if (orthoHeuristic(t2, p) === true) {
      t1.sentbreak = true;
      return;
    }
    if (t2.firstUpper && p.sentStarters.has(nextTyp)) {
      t1.sentbreak = true;
      return;
    }
  }
  if (initial || typ === '##number##') {
    const ortho = orthoHeuristic(t2, p);
    if (ortho === false) {
      t1.sentbreak = false;
      t1.abbr = true;
      return;
    }
    if (ortho === 'unknown' && initial && t2.firstUpper && !((p.orthoContext.get(nextTyp) ?? 0) & ORTHO_LC)) {
      t1.sentbreak = false;
      t1.abbr = true;
    }
  }
}

/** True when the context's tokens have a sentence break that is not the last token. */
function hasSentbreak(tokens: readonly Token[]): boolean {
  const p = loadParams();
  tokens.forEach((t) => firstPass(t, p));
  for (let i = 0, length = tokens.length; i < length; i++) {
    const t1 = tokens[i] as Token;
    const t2 = tokens[i + 1];
    if (t2) secondPass(t1, t2, p);
    if (t1.sentbreak) return i < tokens.length - 1;
  }
  return false;
}

const PERIOD = 0x2e;
const QUESTION = 0x3f;
const BANG = 0x21;

const isAsciiLetter = (code: number): boolean => (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
const isAsciiDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;

/**
 * The tokens that decide `hasSentbreak` for the commonest contexts, or undefined for any other:
 * "word." or "12." (ASCII letters, or ASCII digits), then one NON_WORD character other than "?"
 * and "!", or whitespace and a token with no ".", "?" or "!". Punkt's word tokenizer makes
 * "word." one token there, and what follows it is the NON_WORD character alone, or the tokens of
 * the last token, none of which can be a sentence break (only ".", "?", "!" and tokens ending in
 * a period can). So whether there is a break that is not the last token depends on the first two
 * tokens alone: tokenizing the whole context, line by line, was a third of the splitter's time.
 */
function leadingTokens(context: string): Token[] | undefined {
  const first = charCodeAt.call(context, 0);
  const inWord = isAsciiLetter(first) ? isAsciiLetter : isAsciiDigit(first) ? isAsciiDigit : undefined;
  if (!inWord) return undefined;
  let period = 1;
  while (period < context.length && inWord(charCodeAt.call(context, period))) period++;
  if (charCodeAt.call(context, period) !== PERIOD) return undefined;
  const head = new Token(context.slice(0, period + 1));
  const after = charCodeAt.call(context, period + 1);
  if (NON_WORD_AFTER.has(after)) {
    return after !== QUESTION && after !== BANG && period + 2 === context.length ? [head, new Token(context[period + 1] as string)] : undefined;
  }
  if (!isSpaceCode(after)) return undefined;
  let next = period + 2;
  while (next < context.length && isSpaceCode(charCodeAt.call(context, next))) next++;
  if (next >= context.length) return undefined;
  for (let i = next, length = context.length; i < length; i++) {
    const code = charCodeAt.call(context, i);
    if (code === PERIOD || code === QUESTION || code === BANG || isSpaceCode(code)) return undefined;
  }
  return [head, new Token(context.slice(next, punktWordEnd(context, next)))];
}

/** `hasSentbreak` over the context's tokens as Punkt's word tokenizer gives them: the specification. */
export function contextHasSentbreakByTokens(context: string): boolean {
  return hasSentbreak(tokenizeWords(context));
}

/** `contextHasSentbreakByTokens`, by the leading tokens where they decide it. */
export function contextHasSentbreak(context: string): boolean {
  return hasSentbreak(leadingTokens(context) ?? tokenizeWords(context));
}

/**
 * True when the context has a sentence break that is not its last token. Memoized: the loose
 * variants of a response share almost all of their period contexts.
 */
const containsSentbreak = memo(contextHasSentbreak, 'part');

/** `text.slice(from, to).rfind` of any ASCII whitespace, relative to `from`; 0 when there is none. */
function lastAsciiWhitespace(text: string, from: number, to: number): number {
  for (let i = to - 1; i >= from; i--) {
    const code = charCodeAt.call(text, i);
    if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) return i - from;
  }
  return 0;
}

interface Candidate {
  end: number;
  /** Where the next sentence starts: the token after whitespace, or right after the match. */
  nextStart: number;
  context: string;
}

/** A sentence-end character and what follows it, as PERIOD_CONTEXT_RE matches them. */
interface PeriodMatch {
  index: number;
  /** The length of the regex's group 1: one NON_WORD character, or whitespace and a token. */
  after: number;
  /** The length of group 2 (the token after the whitespace); 0 after a NON_WORD character. */
  nextToken: number;
}

const SENTENCE_END = /[.?!]/g;


/**
 * The next match of PERIOD_CONTEXT_RE at or after `from`, scanned by hand: the regex built two
 * capture strings per period, which is most periods of a response.
 */
function nextPeriod(text: string, from: number): PeriodMatch | undefined {
  // The regex engine finds the next sentence-end character faster than a loop over the text.
  SENTENCE_END.lastIndex = from;
  for (let found = SENTENCE_END.exec(text); found; found = SENTENCE_END.exec(text)) {
    const i = found.index;
    const next = charCodeAt.call(text, i + 1);
    if (NON_WORD_AFTER.has(next)) return { index: i, after: 1, nextToken: 0 };
    if (i + 1 >= text.length || !isSpaceCode(next)) continue;
    let tokenStart = i + 2;
    while (tokenStart < text.length && isSpaceCode(charCodeAt.call(text, tokenStart))) tokenStart++;
    // `\s+(\S+)` needs a token after the whitespace.
    if (tokenStart >= text.length) continue;
    let tokenEnd = tokenStart + 1;
    while (tokenEnd < text.length && !isSpaceCode(charCodeAt.call(text, tokenEnd))) tokenEnd++;
    return { index: i, after: tokenEnd - i - 1, nextToken: tokenEnd - tokenStart };
  }
  return undefined;
}

/** The candidate for period match `m`, whose context starts at `start`. */
function candidate(text: string, start: number, m: PeriodMatch): Candidate {
  return {
    end: m.index + 1,
    nextStart: m.index + 1 + (m.nextToken ? m.after - m.nextToken : 0),
    // The context is the word before the period, the period, and what the regex saw after it.
    context: text.slice(start, m.index + 1 + m.after),
  };
}

/**
 * The sentence spans of a text, one `next()` at a time: NLTK's period candidates, the breaks among
 * them and the realignment of closers, as three stages that each ask the one before for just what
 * they need, so that the first sentence is found without deciding every period. Written as a
 * scanner rather than a chain of generators, which cost a quarter of the splitter's time.
 */
class SentenceSpans {
  // Candidates (NLTK's `_match_potential_end_contexts`, with its overlap rule for adjacent ones).
  private from = 0;
  private prev: PeriodMatch | undefined;
  private prevStart = 0;
  private prevStop = 0;
  private periodsDone = false;
  // Slices (`_slices_from_text`): the text up to each break, then the rest.
  private lastBreak = 0;
  private slicesDone = false;
  // Realignment (`_realign_boundaries`): closing quotes and brackets after a break move to the
  // sentence before; each sentence needs the slice after it.
  private current: [number, number] | undefined;
  private shift = 0;

  constructor(private readonly text: string) {}

  /** The next sentence's [start, end), or undefined after the last. */
  next(): [number, number] | undefined {
    const text = this.text;
    for (let next = this.nextSlice(); next; next = this.nextSlice()) {
      const current = this.current;
      this.current = next;
      if (!current) continue;
      const start = current[0] + this.shift;
      // REALIGN_RE needs a closing quote or bracket first.
      const m = CLOSERS.has(charCodeAt.call(text, next[0])) && next[1] > next[0] ? REALIGN_RE.exec(text.slice(next[0], next[1])) : null;
      if (m) {
        this.shift = m[0].length;
        return [start, next[0] + pyRstrip(m[0]).length];
      }
      this.shift = 0;
      if (current[1] > start) return [start, current[1]];
    }
    const last = this.current;
    this.current = undefined;
    return last && last[1] > last[0] + this.shift ? [last[0] + this.shift, last[1]] : undefined;
  }

  private nextSlice(): [number, number] | undefined {
    if (this.slicesDone) return undefined;
    for (let c = this.nextCandidate(); c; c = this.nextCandidate()) {
      if (!containsSentbreak(c.context)) continue;
      const slice: [number, number] = [this.lastBreak, c.end];
      this.lastBreak = c.nextStart;
      return slice;
    }
    this.slicesDone = true;
    return [this.lastBreak, pyRstrip(this.text).length];
  }

  private nextCandidate(): Candidate | undefined {
    const text = this.text;
    while (!this.periodsDone) {
      const match = nextPeriod(text, this.from);
      if (!match) {
        this.periodsDone = true;
        return this.prev && candidate(text, this.prevStart, this.prev);
      }
      this.from = match.index + 1;
      let wordStart = lastAsciiWhitespace(text, this.prevStop, match.index);
      wordStart = wordStart ? wordStart + this.prevStop + 1 : this.prevStart;
      const ready = this.prev && this.prevStop <= wordStart ? candidate(text, this.prevStart, this.prev) : undefined;
      this.prev = match;
      this.prevStart = wordStart;
      this.prevStop = match.index;
      if (ready) return ready;
    }
    return undefined;
  }
}

/** `nltk.sent_tokenize(text)` with the English model; memoized, so the result is shared. */
export const sentTokenize = memo((text): readonly string[] => {
  const out: string[] = [];
  const spans = new SentenceSpans(text);
  for (let span = spans.next(); span; span = spans.next()) out.push(text.slice(span[0], span[1]));
  return out;
});

/**
 * The sentences of `sentTokenize(text)` one by one, deciding each period only when the next
 * sentence is asked for: checkers that read the first few sentences, or stop at the first word
 * that fails, skip the rest.
 */
export function* sentences(text: string): Generator<string> {
  const known = sentTokenize.cached(text);
  if (known) {
    yield* known;
    return;
  }
  const spans = new SentenceSpans(text);
  for (let span = spans.next(); span; span = spans.next()) yield text.slice(span[0], span[1]);
}

/** The first `n` sentences of `sentTokenize(text)`, or all of them when it has fewer. */
export function leadingSentences(text: string, n: number): readonly string[] {
  const out: string[] = [];
  if (n < 1) return out;
  for (const sentence of sentences(text)) if (out.push(sentence) === n) break;
  return out;
}

/** `sentTokenize(text)[0]`. */
export function firstSentence(text: string): string | undefined {
  return leadingSentences(text, 1)[0];
}
