import { stripLatex } from './normalize';

/**
 * The comparison form of a free-text answer: a sequence of tokens, each a number (compared by value),
 * a symbol that carries meaning (compared exactly) or a word (compared by the rules of ./match.ts).
 * Everything else — case, articles, brackets, quotes, most punctuation, spacing, hyphens between
 * words, LaTeX markup — is dropped, because none of it can change what the answer says. What may
 * change it stays: a sign, a decimal point, every digit, an exponent (`6.02 \times 10^{23}`,
 * `6.02e23`, `10²³`), `±`, `%`, a charge (`Fe³⁺`), `/`, `=`, `<`, `>`, `≤`, `≥`, `≠`.
 */
export type Token =
  | { kind: 'number'; text: string }
  | { kind: 'symbol'; text: string }
  | {
      kind: 'word';
      text: string;
      /**
       * A name, code or numeral rather than prose — a capital after the first letter (`NaCl`, `mRNA`,
       * `GlcNAc`), an upper-case Roman numeral (`XVIII`), letters joined to digits (`CO2`, `p53`), a
       * number word (`million`, `sixteenth`): compared exactly, never as a spelling slip.
       */
      exact: boolean;
    };

/** LaTeX commands that stand for a symbol the comparison keeps (or a letter: `\mu` is a unit prefix). */
const LATEX_SYMBOLS: Record<string, string> = {
  times: '×', cdot: '·', pm: '±', mp: '∓', le: '≤', leq: '≤', ge: '≥', geq: '≥', ne: '≠', neq: '≠',
  lt: '<', gt: '>', circ: '°', degree: '°', percent: '%',
  alpha: 'α', beta: 'β', gamma: 'γ', delta: 'δ', epsilon: 'ε', varepsilon: 'ε', zeta: 'ζ', eta: 'η',
  theta: 'θ', iota: 'ι', kappa: 'κ', lambda: 'λ', mu: 'μ', nu: 'ν', xi: 'ξ', pi: 'π', rho: 'ρ',
  sigma: 'σ', tau: 'τ', upsilon: 'υ', phi: 'φ', varphi: 'φ', chi: 'χ', psi: 'ψ', omega: 'ω',
  Gamma: 'Γ', Delta: 'Δ', Theta: 'Θ', Lambda: 'Λ', Xi: 'Ξ', Pi: 'Π', Sigma: 'Σ', Phi: 'Φ', Psi: 'Ψ', Omega: 'Ω',
};
const LATEX_COMMAND = /\\([A-Za-z]+)/g;
/** Layout commands: no part of the answer. */
const LATEX_LAYOUT = new Set(['left', 'right', 'big', 'Big', 'bigl', 'bigr', 'Bigl', 'Bigr', 'displaystyle', 'textstyle', 'quad', 'qquad', 'limits', 'nolimits']);
const LATEX_FRACTION = /\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g;

const SUPERSCRIPT: Record<string, string> = {
  '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9',
  '⁺': '+', '⁻': '-', '⁼': '=', '⁽': '(', '⁾': ')',
};
const SUPERSCRIPT_RUN = /[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾]+/g;

/**
 * Plain text with the answer's meaning intact: LaTeX wrappers removed (./normalize), symbol commands
 * as their characters, `\frac{a}{b}` as `a/b`, a thin-space or `{,}` thousands separator joined, a run
 * of superscripts as `^` and its characters (before NFKC, which would read `10²³` as `1023`), then
 * NFKC (full-width digits, `µ` → `μ`, subscripts → digits), `+/-` as `±`.
 */
function plain(text: string): string {
  const latex = text
    .replace(/(?<=\d)(?:\\,|\{,\}|[\u2009\u202F])(?=\d{3}(?!\d))/g, ',')
    .replace(/\\%/g, '%')
    .replace(LATEX_FRACTION, '($1)/($2)');
  const commands = stripLatex(latex).replace(LATEX_COMMAND, (_command, name: string) => {
    if (LATEX_LAYOUT.has(name)) return ' ';
    const symbol = LATEX_SYMBOLS[name];
    return symbol === undefined ? ` ${name} ` : ` ${symbol} `;
  });
  return commands
    .replace(SUPERSCRIPT_RUN, (run) => '^' + [...run].map((c) => SUPERSCRIPT[c] ?? '').join(''))
    .normalize('NFKC')
    .replace(/\u2044/g, '/') // NFKC writes `½` as 1⁄2, with the fraction slash
    .replace(/\+\s*\/\s*[-−]|\+[-−]/g, '±');
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const LETTER = /[\p{L}\p{M}]/u;
const isLetter = (c: string | undefined): boolean => c !== undefined && LETTER.test(c);
const isAlnum = (c: string | undefined): boolean => isDigit(c) || isLetter(c);
/** A minus sign as models write it: ASCII hyphen-minus, U+2212, an en dash. */
const isMinus = (c: string | undefined): boolean => c === '-' || c === '−' || c === '–';
const MULTIPLY = new Set(['×', 'x', 'X', '*', '·', '⋅']);
/** Symbols kept as tokens; every other non-alphanumeric character only separates tokens. */
const KEPT_SYMBOLS = new Set(['±', '∓', '%', '‰', '/', '=', '<', '>', '≤', '≥', '≠']);

const ROMAN = /^M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})$/;

/** Numerals written as words: one letter can turn one into another (`million`/`billion`, `sixteen`/`sixteenth`). */
const NUMBER_WORDS = new Set(
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth twentieth hundredth thousandth half halves quarter once twice thrice double triple quadruple single'.split(' '),
);

function isNumberWord(word: string): boolean {
  const singular = word.endsWith('s') ? word.slice(0, -1) : word;
  return NUMBER_WORDS.has(word) || NUMBER_WORDS.has(singular) || /(?:illion|illionth|teenth|tieth)$/.test(singular);
}

/** A number's value as sign, significant digits and a power of ten: `0.50` and `5e-1` read the same. */
function canonicalNumber(negative: boolean, digits: string, exponent: number): string {
  // Scanned by hand: `/0+$/` would retry from every zero of a long run.
  let first = 0;
  while (first < digits.length && digits[first] === '0') first++;
  if (first === digits.length) return '0';
  let last = digits.length;
  while (digits[last - 1] === '0') last--;
  const significant = digits.slice(first, last);
  const power = exponent + (digits.length - last);
  // Written as a decimal where that is short (as JavaScript prints numbers), else in scientific form;
  // either way one text per value.
  const magnitude = power + significant.length - 1;
  let text: string;
  if (magnitude < -7 || magnitude >= 21) text = `${significant[0]}${significant.length > 1 ? '.' + significant.slice(1) : ''}e${magnitude}`;
  else if (power >= 0) text = significant + '0'.repeat(power);
  else {
    const padded = significant.padStart(1 - power, '0');
    text = `${padded.slice(0, padded.length + power)}.${padded.slice(padded.length + power)}`;
  }
  return (negative ? '-' : '') + text;
}

/** Reads a signed integer exponent at `i` (`23`, `-3`, `{23}`, `(−3)`): its value and end, or null. */
function readExponent(s: string, i: number): { value: number; end: number } | null {
  let j = i;
  const open = s[j] === '{' || s[j] === '(' ? s[j] : null;
  if (open) j++;
  let negative = false;
  if (isMinus(s[j]) || s[j] === '+') {
    negative = isMinus(s[j]);
    j++;
  }
  const start = j;
  while (isDigit(s[j])) j++;
  if (j === start || j - start > 6) return null;
  if (open) {
    if (s[j] !== (open === '{' ? '}' : ')')) return null;
    j++;
  }
  const value = Number(s.slice(start, j - (open ? 1 : 0)));
  return { value: negative ? -value : value, end: j };
}

/** `^23`, `^{-3}`, `**23` at `i`: the exponent and where it ends. */
function readPower(s: string, i: number): { value: number; end: number } | null {
  if (s[i] === '^') return readExponent(s, i + 1);
  if (s[i] === '*' && s[i + 1] === '*') return readExponent(s, i + 2);
  return null;
}

const skipSpaces = (s: string, i: number): number => {
  let j = i;
  while (s[j] === ' ') j++;
  return j;
};

/**
 * Reads the number that starts at `i` (a digit, or `.` and a digit): thousands groups, a decimal part,
 * an exponent in e-notation or as `× 10^n`, or `10^n` alone. Linear: each character is read once.
 */
function readNumber(s: string, i: number): { digits: string; exponent: number; end: number } {
  let j = i;
  let integer = '';
  while (isDigit(s[j])) integer += s[j++];
  // `1,000,000` and `1 000 000`: a comma or a space (thin spaces and `{,}` became commas) before
  // exactly three digits groups thousands when the first group has at most three; `1,3-butadiene`
  // keeps its two numbers. `1,000.5` reads 1000.5.
  if (integer.length >= 1 && integer.length <= 3) {
    const separator = s[j];
    while ((separator === ',' || separator === ' ') && s[j] === separator && isDigit(s[j + 1]) && isDigit(s[j + 2]) && isDigit(s[j + 3]) && !isDigit(s[j + 4])) {
      integer += s.slice(j + 1, j + 4);
      j += 4;
    }
  }
  let fraction = '';
  if (s[j] === '.' && isDigit(s[j + 1])) {
    j++;
    while (isDigit(s[j])) fraction += s[j++];
  }
  let exponent = -fraction.length;
  let digits = integer + fraction;
  // e-notation: `6.02e23`, `1E-5`; the letter must be followed by the exponent's digits.
  if ((s[j] === 'e' || s[j] === 'E') && digits !== '') {
    const power = readExponent(s, j + 1);
    if (power !== null && !isLetter(s[power.end])) return { digits, exponent: exponent + power.value, end: power.end };
  }
  // `10^23` alone is a power of ten, as `10^{-3}` is.
  if (integer === '10' && fraction === '') {
    const power = readPower(s, j);
    if (power !== null) return { digits: '1', exponent: power.value, end: power.end };
  }
  // `6.02 × 10^23`, `6.02x10^{23}`, `6.02 * 10**23`, `6.02·10^23` (superscripts arrive as `^23`).
  const k = skipSpaces(s, j);
  if (MULTIPLY.has(s[k] ?? '')) {
    const ten = skipSpaces(s, k + 1);
    if (s[ten] === '1' && s[ten + 1] === '0') {
      const power = readPower(s, skipSpaces(s, ten + 2));
      if (power !== null) {
        digits = digits === '' ? '0' : digits;
        exponent += power.value;
        return { digits, exponent, end: power.end };
      }
    }
  }
  return { digits, exponent, end: j };
}

/** A leading sign belongs to a number when nothing alphanumeric stands right before it (`x-2` is a hyphen). */
function signBefore(s: string, i: number): boolean | null {
  const c = s[i - 1];
  if (!(isMinus(c) || c === '+')) return null;
  if (isAlnum(s[i - 2]) || s[i - 2] === ')' || s[i - 2] === '.') return null;
  return isMinus(c);
}

/** The comparison form of an answer (see `Token`). Linear in the text's length. */
export function tokenize(text: string): Token[] {
  const s = plain(text).replace(/\s+/g, ' ');
  const tokens: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (isDigit(c) || (c === '.' && isDigit(s[i + 1]) && !isDigit(s[i - 1]))) {
      const negative = signBefore(s, i) === true;
      const read = readNumber(s, i);
      tokens.push({ kind: 'number', text: canonicalNumber(negative, read.digits || '0', read.exponent) });
      i = read.end;
      // `3 × 4` and `3x4`: a multiplication sign between two numbers only separates them.
      const k = skipSpaces(s, i);
      if (MULTIPLY.has(s[k] ?? '') && (isDigit(s[skipSpaces(s, k + 1)]) || s[skipSpaces(s, k + 1)] === '.')) i = k + 1;
      continue;
    }
    if (isLetter(c)) {
      let j = i;
      while (isLetter(s[j])) j++;
      const original = s.slice(i, j);
      const exact =
        (/\p{Ll}/u.test(original) && /\p{Lu}/u.test(original.slice(1))) ||
        (/^\p{Lu}+$/u.test(original) && ROMAN.test(original)) ||
        isDigit(s[i - 1]) ||
        isDigit(s[j]) ||
        isNumberWord(original.toLowerCase());
      pushWord(tokens, original, exact, s, j);
      i = j;
      continue;
    }
    if (isMinus(c) || c === '+') {
      // A sign after a name or a number and before no other letter or digit is a charge (`Fe3+`, `Cl−`).
      if (isAlnum(s[i - 1]) && !isAlnum(s[i + 1]) && !(s[i + 1] === '.' && isDigit(s[i + 2]))) {
        tokens.push({ kind: 'symbol', text: isMinus(c) ? '−' : '+' });
      } else if (c === '+' && !isDigit(s[i + 1]) && !(s[i + 1] === '.' && isDigit(s[i + 2])) && s[i - 1] === ' ' && s[i + 1] === ' ') {
        tokens.push({ kind: 'symbol', text: '+' });
      }
      i++;
      continue;
    }
    if (c === '&') tokens.push({ kind: 'word', text: 'and', exact: false });
    else if (KEPT_SYMBOLS.has(c)) tokens.push({ kind: 'symbol', text: c === '∓' ? '±' : c });
    i++;
  }
  return tokens;
}

/**
 * Adds a word, lower-cased. "the" and "an" are always articles; "a" only in lower case, or as an
 * answer's first word before another (`A plant`): an upper-case `A` elsewhere is a name (`vitamin A`,
 * `hepatitis A`, `type A`). "percent" is `%`.
 */
function pushWord(tokens: Token[], original: string, exact: boolean, s: string, end: number): void {
  const word = original.toLowerCase();
  if (word === 'the' || word === 'an') return;
  if (word === 'a' && (original === 'a' || (tokens.length === 0 && isLetter(s[skipSpaces(s, end)])))) return;
  if (word === 'percent') {
    tokens.push({ kind: 'symbol', text: '%' });
    return;
  }
  tokens.push({ kind: 'word', text: word, exact });
}

/** The tokens as one line, for details: `-273.15 k`. */
export function tokensText(tokens: readonly Token[]): string {
  return tokens.map((t) => t.text).join(' ');
}
