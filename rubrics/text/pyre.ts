import { PY_B, PY_SPACE, PY_WORD } from './py';

/**
 * Compiles a Python `re` pattern that arrives as data (IFEval uses keywords and section markers as
 * unescaped regexes) into a JavaScript RegExp with Python's meaning of `.`, `\b`, `\w`, `\s`, `\d`
 * for str patterns. Returns null when the pattern does not compile, so the label can be rejected.
 */
const compiled = new Map<string, RegExp | null>();

export function pyRegExp(source: string, flags: string): RegExp | null {
  const key = `${flags}\u0000${source}`;
  if (compiled.has(key)) {
    const re = compiled.get(key) ?? null;
    if (re) re.lastIndex = 0;
    return re;
  }
  // Labels repeat the same few keywords; a bound keeps odd input from growing the cache.
  if (compiled.size > 4096) compiled.clear();
  const re = translate(source, flags);
  compiled.set(key, re);
  return re;
}

function translate(source: string, flags: string): RegExp | null {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i] as string;
    if (ch === '\\' && i + 1 < source.length) {
      const next = source[i + 1] as string;
      i++;
      out += inClass ? classEscape(next) : escape(next);
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      out += ch;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      out += ch;
      if (source[i + 1] === '^') out += source[++i];
      // A "]" first in a Python class is a literal.
      if (source[i + 1] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    out += ch === '.' ? '[^\\n]' : ch;
  }
  try {
    return new RegExp(out, `u${flags}`);
  } catch {
    return null;
  }
}

function escape(c: string): string {
  switch (c) {
    case 'b':
      return PY_B;
    case 'w':
      return `[${PY_WORD}]`;
    case 'W':
      return `[^${PY_WORD}]`;
    case 's':
      return `[${PY_SPACE}]`;
    case 'S':
      return `[^${PY_SPACE}]`;
    case 'd':
      return '\\p{Nd}';
    case 'D':
      return '\\P{Nd}';
    case 'A':
      return '^';
    case 'Z':
      return '$';
    default:
      return literal(c);
  }
}

function classEscape(c: string): string {
  switch (c) {
    case 'w':
      return PY_WORD;
    case 's':
      return PY_SPACE;
    case 'd':
      return '\\p{Nd}';
    default:
      return c === '-' ? '\\-' : literal(c);
  }
}

/** Python lets any punctuation be escaped; JavaScript's `u` mode only its syntax characters. */
function literal(c: string): string {
  if (/[A-Za-z0-9]/.test(c)) return `\\${c}`;
  return /[\^$.*+?()[\]{}|/\\]/.test(c) ? `\\${c}` : c;
}
