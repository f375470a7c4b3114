import { TooComplex } from '../budget';
import { KNOWN_FUNCTIONS, type RelOp } from './ast';

/**
 * Tokens of the answer language. LaTeX and plain text share one token set: `\le` and `<=` are both
 * `rel <=`, `\cdot`, `\times` and `*` are all `op *`, so the parser sees one grammar.
 */
export type Token =
  /** `rep`: the repeating block of a repeating decimal (`0.1\overline{6}` is text `0.1`, rep `6`). */
  | { t: 'num'; text: string; rep?: string }
  | { t: 'id'; name: string }
  | { t: 'cmd'; name: string }
  | { t: 'text'; text: string }
  | { t: 'op'; v: string }
  | { t: 'rel'; v: RelOp }
  | { t: 'sep'; v: Connective }
  | { t: 'env'; begin: boolean; name: string };

/** A word joining two answers or two conditions: `x \le 2 \text{ or } x > 3`, `x > 1 \land x < 3`. */
export type Connective = 'and' | 'or';

const FUNCTION_WORDS = new Set<string>(KNOWN_FUNCTIONS);

const GREEK = new Set([
  'alpha', 'beta', 'gamma', 'delta', 'epsilon', 'varepsilon', 'zeta', 'eta', 'theta', 'vartheta', 'iota',
  'kappa', 'lambda', 'mu', 'nu', 'xi', 'rho', 'sigma', 'tau', 'upsilon', 'phi', 'varphi', 'chi', 'psi',
  'omega', 'Gamma', 'Delta', 'Theta', 'Lambda', 'Xi', 'Sigma', 'Upsilon', 'Phi', 'Psi', 'Omega',
]);

/** Commands that only change spacing or style: dropped. */
const IGNORED = new Set([
  'left', 'right', 'big', 'Big', 'bigg', 'Bigg', 'bigl', 'bigr', 'Bigl', 'Bigr', 'biggl', 'biggr', 'middle',
  'displaystyle', 'textstyle', 'scriptstyle', 'limits', 'nolimits', 'quad', 'qquad', 'enspace', 'thinspace',
  'medspace', 'thickspace', 'negthinspace', 'hspace', 'boxed', 'fbox', 'dots', 'ldots', 'cdots', 'vdots',
  'dotsc', 'dotsb', 'angle', 'measuredangle', 'triangle', 'phantom', 'cr', 'newline', 'noindent', 'dollar',
  'mathstrut', 'strut', 'rm', 'bf', 'it', 'sl', 'sf', 'tt', 'em', 'tiny', 'scriptsize', 'footnotesize', 'small',
  'normalsize', 'large', 'Large', 'LARGE', 'huge', 'Huge',
  // Bold, underline and other presentation around math: `\mathbf{5}` is 5; the group stays.
  'mathbf', 'boldsymbol', 'bm', 'pmb', 'mathbold', 'mathbfit', 'underline', 'mathnormal', 'ensuremath',
]);

/** Colour commands and how many braced arguments (colour model, names) come before the coloured content. */
const COLOUR_ARGS: Record<string, number> = { color: 1, textcolor: 1, colorbox: 1, fcolorbox: 2 };

/** Text commands that only set a face: when their argument holds math (`\textbf{\frac{1}{2}}`) it is read as math. */
const FACE_TEXT_COMMANDS = new Set(['textbf', 'textit', 'textsl', 'textup', 'textnormal', 'textmd', 'textsf', 'emph']);

/** Commands whose braced argument is read verbatim as text (`\text{ cm}`, `\mathrm{e}`). */
const TEXT_COMMANDS = new Set([
  'text', 'textbf', 'textit', 'textsl', 'textmd', 'textrm', 'textnormal', 'textsf', 'texttt', 'textup', 'mbox',
  'hbox', 'mathrm', 'mathit', 'mathsf', 'mathtt', 'operatorname', 'emph', 'mathbb', 'mathcal', 'mathfrak',
]);

const ALIASES: Record<string, Token> = {
  dfrac: { t: 'cmd', name: 'frac' },
  tfrac: { t: 'cmd', name: 'frac' },
  cfrac: { t: 'cmd', name: 'frac' },
  dbinom: { t: 'cmd', name: 'binom' },
  tbinom: { t: 'cmd', name: 'binom' },
  choose: { t: 'cmd', name: 'choose' },
  le: { t: 'rel', v: '<=' },
  leq: { t: 'rel', v: '<=' },
  leqslant: { t: 'rel', v: '<=' },
  ge: { t: 'rel', v: '>=' },
  geq: { t: 'rel', v: '>=' },
  geqslant: { t: 'rel', v: '>=' },
  ne: { t: 'rel', v: '!=' },
  neq: { t: 'rel', v: '!=' },
  lt: { t: 'rel', v: '<' },
  gt: { t: 'rel', v: '>' },
  approx: { t: 'rel', v: '~=' },
  simeq: { t: 'rel', v: '~=' },
  approxeq: { t: 'rel', v: '~=' },
  in: { t: 'rel', v: 'in' },
  cdot: { t: 'op', v: '*' },
  times: { t: 'op', v: '*' },
  ast: { t: 'op', v: '*' },
  div: { t: 'op', v: '/' },
  pm: { t: 'op', v: 'pm' },
  mp: { t: 'op', v: 'mp' },
  cup: { t: 'op', v: 'cup' },
  cap: { t: 'op', v: 'cap' },
  setminus: { t: 'op', v: 'setminus' },
  backslash: { t: 'op', v: 'setminus' },
  R: { t: 'cmd', name: 'reals' },
  Reals: { t: 'cmd', name: 'reals' },
  reals: { t: 'cmd', name: 'reals' },
  colon: { t: 'op', v: ':' },
  vert: { t: 'op', v: '|' },
  lvert: { t: 'op', v: '|' },
  rvert: { t: 'op', v: '|' },
  mid: { t: 'op', v: '|' },
  Vert: { t: 'op', v: '|' },
  lVert: { t: 'op', v: '|' },
  rVert: { t: 'op', v: '|' },
  langle: { t: 'op', v: '<(' },
  rangle: { t: 'op', v: ')>' },
  lfloor: { t: 'op', v: 'lfloor' },
  rfloor: { t: 'op', v: 'rfloor' },
  lceil: { t: 'op', v: 'lceil' },
  rceil: { t: 'op', v: 'rceil' },
  lbrace: { t: 'op', v: '\\{' },
  rbrace: { t: 'op', v: '\\}' },
  lbrack: { t: 'op', v: '[' },
  rbrack: { t: 'op', v: ']' },
  circ: { t: 'op', v: 'circ' },
  degree: { t: 'op', v: 'degree' },
  infty: { t: 'cmd', name: 'infty' },
  infin: { t: 'cmd', name: 'infty' },
  emptyset: { t: 'cmd', name: 'emptyset' },
  varnothing: { t: 'cmd', name: 'emptyset' },
  imath: { t: 'id', name: 'i' },
  land: { t: 'sep', v: 'and' },
  lor: { t: 'sep', v: 'or' },
  wedge: { t: 'sep', v: 'and' },
  vee: { t: 'sep', v: 'or' },
  arcsec: { t: 'cmd', name: 'arcsec' },
};

/** Known commands an unknown one may start with (`\quadx` is `\quad x`, `\pir` is `\pi r`). */
const SPLITTABLE = ['qquad', 'quad', 'cdot', 'times', 'pi', 'infty', 'sqrt', 'frac', 'dfrac', 'left', 'right'];

const UNICODE: Record<string, Token[]> = {
  '−': [{ t: 'op', v: '-' }],
  '–': [{ t: 'op', v: '-' }],
  '×': [{ t: 'op', v: '*' }],
  '·': [{ t: 'op', v: '*' }],
  '⋅': [{ t: 'op', v: '*' }],
  '÷': [{ t: 'op', v: '/' }],
  '≤': [{ t: 'rel', v: '<=' }],
  '≥': [{ t: 'rel', v: '>=' }],
  '≠': [{ t: 'rel', v: '!=' }],
  '≈': [{ t: 'rel', v: '~=' }],
  '∈': [{ t: 'rel', v: 'in' }],
  '±': [{ t: 'op', v: 'pm' }],
  '∧': [{ t: 'sep', v: 'and' }],
  '∨': [{ t: 'sep', v: 'or' }],
  '…': [],
  '∪': [{ t: 'op', v: 'cup' }],
  '∩': [{ t: 'op', v: 'cap' }],
  '∖': [{ t: 'op', v: 'setminus' }],
  'ℝ': [{ t: 'cmd', name: 'reals' }],
  '°': [{ t: 'op', v: 'degree' }],
  'π': [{ t: 'cmd', name: 'pi' }],
  '∞': [{ t: 'cmd', name: 'infty' }],
  '√': [{ t: 'cmd', name: 'sqrt' }],
  '²': [{ t: 'op', v: '^' }, { t: 'num', text: '2' }],
  '³': [{ t: 'op', v: '^' }, { t: 'num', text: '3' }],
};

const SINGLE_OPS = new Set(['+', '-', '*', '/', '^', '_', '(', ')', '[', ']', '{', '}', ',', ';', ':', '!', '&', '|', "'", '%']);
/** Dropped wherever they appear: math delimiters, currency signs, quotes. */
const SKIPPED_CHARS = new Set(['$', '€', '£', '¥', '₹', '"', '~', '\u00a0', '?']);

function isLetter(c: string | undefined): boolean {
  return c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}
function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}
function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\f' || c === '\v';
}

export class LexError extends Error {}

/** Reads `{…}` starting at `open`, returning its content and the index after the closing brace. */
function readGroup(src: string, open: number): { content: string; end: number } | null {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return { content: src.slice(open + 1, i), end: i + 1 };
  }
  return null;
}

/**
 * Splits an answer into tokens. Thousands separators inside LaTeX (`14{,}916`, `11,\!111`,
 * `1\,000`) are joined into the number here, because only the lexer still sees them.
 */
export function tokenize(src: string, maxTokens: number): Token[] {
  const out: Token[] = [];
  const push = (tok: Token): void => {
    out.push(tok);
    if (out.length > maxTokens) throw new TooComplex('maxTokens');
  };
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i] as string;
    if (isSpace(c) || SKIPPED_CHARS.has(c)) {
      i++;
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(src[i + 1]))) {
      i = readNumber(src, i, push);
      continue;
    }
    if (isLetter(c)) {
      let j = i;
      while (isLetter(src[j])) j++;
      lexWord(src.slice(i, j), out, push);
      i = j;
      continue;
    }
    if (c === '\\') {
      i = readCommand(src, i, push);
      continue;
    }
    const two = src.slice(i, i + 2);
    if (two === '<=' || two === '=<') {
      push({ t: 'rel', v: '<=' });
      i += 2;
      continue;
    }
    if (two === '>=' || two === '=>') {
      push({ t: 'rel', v: '>=' });
      i += 2;
      continue;
    }
    if (two === '!=') {
      push({ t: 'rel', v: '!=' });
      i += 2;
      continue;
    }
    if (two === '==') {
      push({ t: 'rel', v: '=' });
      i += 2;
      continue;
    }
    if (c === '=' || c === '<' || c === '>') {
      push({ t: 'rel', v: c });
      i++;
      continue;
    }
    if (c === '*' && src[i + 1] === '*') {
      // `**` is a power in plain text (`2**3`).
      push({ t: 'op', v: '^' });
      i += 2;
      continue;
    }
    if (SINGLE_OPS.has(c)) {
      push({ t: 'op', v: c });
      i++;
      continue;
    }
    if (c === '.') {
      // A lone full stop ends a sentence; it is not part of the answer.
      i++;
      continue;
    }
    const mapped = UNICODE[c];
    if (mapped) {
      for (const tok of mapped) push(tok);
      i++;
      continue;
    }
    throw new LexError(`unexpected character ${JSON.stringify(c)}`);
  }
  return out;
}

function readNumber(src: string, start: number, push: (t: Token) => void): number {
  let i = start;
  let text = '';
  while (isDigit(src[i])) text += src[i++];
  const leading = text.length;
  for (;;) {
    // Thousands separators LaTeX writes between groups of three digits.
    const sep = /^(?:\{,\}|,\\!\s*|\\,|\\!|\{\\,\})/.exec(src.slice(i, i + 6));
    if (!sep || leading === 0 || leading > 3) break;
    const after = i + sep[0].length;
    const group = src.slice(after, after + 3);
    if (!/^\d{3}$/.test(group) || isDigit(src[after + 3])) break;
    text += group;
    i = after + 3;
  }
  if (src[i] === '.') {
    const repeating = readRepeating(src, i);
    if (repeating) {
      push({ t: 'num', text: `${text}.${repeating.frac}`, rep: repeating.rep });
      return repeating.end;
    }
  }
  if (src[i] === '.' && isDigit(src[i + 1])) {
    text += '.';
    i++;
    while (isDigit(src[i])) text += src[i++];
  }
  // Scientific notation in plain text: `1e-3`, `2.5E10` (not `2e` or `3ex`).
  const exponent = /^[eE]([-+]?\d+)(?![\w.])/.exec(src.slice(i, i + 12));
  if (exponent) {
    push({ t: 'num', text });
    push({ t: 'op', v: '*' });
    push({ t: 'num', text: '10' });
    push({ t: 'op', v: '^' });
    push({ t: 'op', v: '{' });
    const e = exponent[1] as string;
    if (e.startsWith('-') || e.startsWith('+')) push({ t: 'op', v: e[0] as string });
    push({ t: 'num', text: e.replace(/^[-+]/, '') });
    push({ t: 'op', v: '}' });
    return i + exponent[0].length;
  }
  push({ t: 'num', text });
  return i;
}

const BAR_REPETEND = /^\\(?:overline|bar)\s*(?:\{\s*(\d+)\s*\}|(\d))/;
const DOT_REPETEND = /^\\dot\s*\{(\d)\}(?:(\d*)\\dot\s*\{(\d)\})?/;
const PAREN_REPETEND = /^\((\d+)\)/;
const ELLIPSIS = /^(?:\.{3}|…|\\[lc]?dots(?![a-zA-Z]))/;

/**
 * A repeating decimal from its decimal point on: `0.\overline{3}`, `0.1\bar{6}`, `0.\dot{1}4\dot{2}`,
 * `0.(3)`, or digits that visibly repeat before an ellipsis (`0.333...`, `0.1212\ldots`: the block
 * must repeat at least twice over at least three digits, so a truncated `3.14159...` stays a decimal).
 */
function readRepeating(src: string, dot: number): { frac: string; rep: string; end: number } | null {
  let i = dot + 1;
  while (isDigit(src[i])) i++;
  const frac = src.slice(dot + 1, i);
  const rest = src.slice(i, i + 48);
  const bar = BAR_REPETEND.exec(rest);
  if (bar) return { frac, rep: (bar[1] ?? bar[2]) as string, end: i + bar[0].length };
  const dots = DOT_REPETEND.exec(rest);
  if (dots) return { frac, rep: `${dots[1]}${dots[3] === undefined ? '' : `${dots[2]}${dots[3]}`}`, end: i + dots[0].length };
  const paren = PAREN_REPETEND.exec(rest);
  if (paren && frac.length + (paren[1] as string).length <= 40) return { frac, rep: paren[1] as string, end: i + paren[0].length };
  const ellipsis = ELLIPSIS.exec(rest);
  if (ellipsis) {
    const period = visiblePeriod(frac);
    if (period) return { frac: frac.slice(0, period.start), rep: frac.slice(period.start, period.start + period.length), end: i + ellipsis[0].length };
  }
  return null;
}

/** The shortest block (≤ 6 digits) that ends `digits` and repeats at least twice over ≥ 3 digits. */
function visiblePeriod(digits: string): { start: number; length: number } | null {
  for (let length = 1; length <= 6; length++) {
    const block = digits.slice(digits.length - length);
    if (block.length < length) return null;
    let start = digits.length - length;
    while (start >= length && digits.slice(start - length, start) === block) start -= length;
    const repeated = digits.length - start;
    if (repeated >= 2 * length && repeated >= 3) return { start, length };
  }
  return null;
}

function lexWord(word: string, out: Token[], push: (t: Token) => void): void {
  const prev = out[out.length - 1];
  const afterValue = prev !== undefined && (prev.t === 'num' || (prev.t === 'op' && (prev.v === ')' || prev.v === '}')));
  if (afterValue) {
    // `(11,7)or(7,11)`, `1orW(x)`: a connective glued to the previous answer.
    const glued = /^(or|and)(?=[A-Z]|$)/.exec(word);
    if (glued?.[1]) {
      push({ t: 'sep', v: glued[1] as Connective });
      if (word.length > glued[1].length) lexWord(word.slice(glued[1].length), out, push);
      return;
    }
  }
  if (word === 'and' || word === 'or') return push({ t: 'sep', v: word });
  if (word === 'percent' || word === 'pct' || word === 'percentage' || word === 'percents') return push({ t: 'op', v: '%' });
  if (FUNCTION_WORDS.has(word)) return push({ t: 'cmd', name: word });
  if (word === 'sqrt' || word === 'pi') return push({ t: 'cmd', name: word });
  if (word === 'infinity' || word === 'inf' || word === 'oo') return push({ t: 'cmd', name: 'infty' });
  for (const letter of word) push({ t: 'id', name: letter });
}

function readCommand(src: string, start: number, push: (t: Token) => void): number {
  let i = start + 1;
  // `\\frac` (a doubled backslash, as written in escaped strings) is the command `\frac`; `\\` alone
  // is a matrix row break.
  if (src[i] === '\\') {
    if (isLetter(src[i + 1])) return readCommand(src, i, push);
    push({ t: 'op', v: '\\\\' });
    return i + 1;
  }
  const c = src[i];
  if (!isLetter(c)) {
    if (c === '{' || c === '}') push({ t: 'op', v: `\\${c}` });
    else if (c === '%') push({ t: 'op', v: '%' });
    else if (c === '|') push({ t: 'op', v: '|' });
    // `\,` `\;` `\!` `\ ` `\$` `\(` `\)` `\[` `\]`: spacing and delimiters.
    return i + 1;
  }
  let j = i;
  while (isLetter(src[j])) j++;
  const name = src.slice(i, j);
  const colourArgs = COLOUR_ARGS[name];
  if (colourArgs !== undefined) {
    let k = j;
    for (let a = 0; a < colourArgs; a++) {
      while (isSpace(src[k])) k++;
      // `\textcolor[rgb]{…}{…}`: an optional colour model first.
      if (src[k] === '[') {
        const close = src.indexOf(']', k);
        if (close < 0) return j;
        k = close + 1;
        while (isSpace(src[k])) k++;
      }
      const group = src[k] === '{' ? readGroup(src, k) : null;
      if (!group) return j;
      k = group.end;
    }
    return k;
  }
  if (TEXT_COMMANDS.has(name)) {
    let k = j;
    while (isSpace(src[k])) k++;
    if (FACE_TEXT_COMMANDS.has(name) && src[k] === '{' && readGroup(src, k)?.content.includes('\\')) return j;
    // `\mathbb{R}` and `\mathbb R` are the real line.
    if (name === 'mathbb' && src[k] === 'R' && !isLetter(src[k + 1])) {
      push({ t: 'cmd', name: 'reals' });
      return k + 1;
    }
    if (name === 'mathbb' && /^\{\s*R\s*\}/.test(src.slice(k, k + 8))) {
      push({ t: 'cmd', name: 'reals' });
      return (readGroup(src, k) as { end: number }).end;
    }
    if (src[k] === '{') {
      const group = readGroup(src, k);
      // Upright `\mathrm{e}` and `\mathrm{i}` are Euler's number and the imaginary unit, not units.
      if (group && (name === 'mathrm' || name === 'operatorname') && /^\s*[ei]\s*$/.test(group.content)) {
        push({ t: 'id', name: group.content.trim() });
        return group.end;
      }
      if (group) {
        push({ t: 'text', text: group.content });
        return group.end;
      }
    }
    return j;
  }
  if (name === 'begin' || name === 'end') {
    const group = src[j] === '{' ? readGroup(src, j) : null;
    if (!group) throw new LexError(`\\${name} without an environment name`);
    push({ t: 'env', begin: name === 'begin', name: group.content.replace(/\*$/, '') });
    let end = group.end;
    // `\begin{array}{cc}`: the column spec is layout, not content.
    if (name === 'begin' && group.content === 'array' && src[end] === '{') end = readGroup(src, end)?.end ?? end;
    return end;
  }
  if (IGNORED.has(name)) {
    // `\left.` and `\right.` are invisible delimiters.
    if ((name === 'left' || name === 'right') && src[j] === '.') return j + 1;
    if (name === 'hspace' || name === 'phantom') return src[j] === '{' ? readGroup(src, j)?.end ?? j : j;
    return j;
  }
  const alias = ALIASES[name];
  if (alias) {
    push(alias);
    return j;
  }
  if (GREEK.has(name)) {
    push({ t: 'id', name });
    return j;
  }
  if (FUNCTION_WORDS.has(name) || KNOWN_COMMANDS.has(name)) {
    push({ t: 'cmd', name });
    return j;
  }
  for (const prefix of SPLITTABLE) {
    if (name.length > prefix.length && name.startsWith(prefix)) {
      readCommand(`\\${prefix}`, 0, push);
      return start + 1 + prefix.length;
    }
  }
  // An unknown command is a name (`\zzz`), which keeps answers like `\alpha'` comparable.
  push({ t: 'id', name });
  return j;
}

const KNOWN_COMMANDS = new Set([
  'frac', 'sqrt', 'binom', 'pi', 'overline', 'overrightarrow', 'vec', 'hat', 'bar', 'widehat', 'tilde', 'dot', 'sum', 'prod', 'int', 'lim', 'max', 'min', 'gcd', 'lcm', 'det', 'arcsec', 'pmod', 'bmod', 'mod',
  'perp', 'parallel', 'cong', 'sim', 'equiv', 'to', 'rightarrow', 'Rightarrow', 'implies',
  'iff', 'Leftrightarrow', 'neg', 'forall', 'exists', 'partial', 'nabla', 'prime',
]);
