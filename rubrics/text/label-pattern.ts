import { RE2JS } from 're2js';
import { PY_SPACE, PY_WORD } from './py';
import { pyRegExp } from './pyre';

/**
 * A Python regular expression that arrives in a label (IFEval's keywords, forbidden words,
 * postscript markers and section markers are used unescaped by the reference). A label is input,
 * and a backtracking engine lets one pattern hold a worker for ever (`(a+)+$` on forty `a`s and a
 * `!`), so:
 *
 * - a pattern without any regex syntax (nearly every dataset row: `adoption`, `SECTION`) is a
 *   literal, matched by JavaScript's engine with Python's `\b`/`\w`/`\s`, exactly as before; a
 *   literal cannot backtrack;
 * - any other pattern runs on RE2 (re2js, a linear-time automaton: time proportional to text ×
 *   pattern, whatever the input), at most `MAX_PATTERN` characters. RE2 has no backreferences and
 *   no lookaround: such a pattern is refused when the label is checked, naming the field. Python's
 *   `\w`, `\W`, `\s`, `\S`, `\d`, `\D` keep their Unicode meaning; `\b` is RE2's, which counts only
 *   ASCII letters, digits and `_` as word characters.
 */
export const MAX_PATTERN = 256;

export interface LabelPattern {
  /** `re.search(pattern, text)` is not None. */
  test(text: string): boolean;
  /** `len(re.findall(pattern, text))`. */
  count(text: string): number;
}

export interface PatternOptions {
  ignoreCase?: boolean;
  /** Text around the label's pattern, as the reference concatenates it (`\b` + word + `\b`). */
  before?: string;
  after?: string;
}

const SYNTAX = /[.^$*+?{}[\]\\|()]/;

/** A compiled label pattern, or the reason it cannot run (for the label's error). */
export function labelPattern(source: string, options: PatternOptions = {}): LabelPattern | string {
  const key = `${options.ignoreCase ? 'i' : ''}\u0000${options.before ?? ''}\u0000${source}\u0000${options.after ?? ''}`;
  const cached = compiled.get(key);
  if (cached !== undefined) return cached;
  // Labels repeat the same few patterns; the bound keeps odd input from growing the cache.
  if (compiled.size > 4096) compiled.clear();
  const pattern = SYNTAX.test(source) ? automaton(source, options) : literal(source, options);
  compiled.set(key, pattern);
  return pattern;
}

const compiled = new Map<string, LabelPattern | string>();

function literal(source: string, { ignoreCase, before = '', after = '' }: PatternOptions): LabelPattern | string {
  const re = pyRegExp(`${before}${source}${after}`, ignoreCase ? 'gi' : 'g');
  if (!re) return 'not a valid regular expression';
  return {
    test(text) {
      re.lastIndex = 0;
      const found = re.test(text);
      re.lastIndex = 0;
      return found;
    },
    count(text) {
      re.lastIndex = 0;
      let n = 0;
      for (const m of text.matchAll(re)) if (m) n++;
      return n;
    },
  };
}

function automaton(source: string, { ignoreCase, before = '', after = '' }: PatternOptions): LabelPattern | string {
  if (source.length > MAX_PATTERN) return `a regular expression longer than ${MAX_PATTERN} characters`;
  let re: RE2JS;
  try {
    re = RE2JS.compile(`${toRe2(before)}${toRe2(source)}${toRe2(after)}`, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
    return `not a regular expression the linear-time matcher runs (${why}): backreferences and lookaround are not supported`;
  }
  return {
    test: (text) => re.matcher(text).find(),
    count(text) {
      const m = re.matcher(text);
      let n = 0;
      while (m.find()) n++;
      return n;
    },
  };
}

const RE2_WORD = PY_WORD;
const RE2_SPACE = PY_SPACE.replace(/\\u([0-9a-f]{4})/gi, '\\x{$1}');

/** Python's escapes in RE2's spelling (RE2's own `\w`, `\s`, `\d` are ASCII-only). */
function toRe2(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i] as string;
    if (ch === '\\' && i + 1 < source.length) {
      const next = source[++i] as string;
      out += escape(next, inClass);
      continue;
    }
    if (ch === '[' && !inClass) inClass = true;
    else if (ch === ']' && inClass) inClass = false;
    out += ch;
  }
  return out;
}

function escape(c: string, inClass: boolean): string {
  switch (c) {
    case 'w':
      return inClass ? RE2_WORD : `[${RE2_WORD}]`;
    case 'W':
      return inClass ? '\\W' : `[^${RE2_WORD}]`;
    case 's':
      return inClass ? RE2_SPACE : `[${RE2_SPACE}]`;
    case 'S':
      return inClass ? '\\S' : `[^${RE2_SPACE}]`;
    case 'd':
      return '\\p{Nd}';
    case 'D':
      return '\\P{Nd}';
    case 'Z':
      return '\\z';
    default:
      return `\\${c}`;
  }
}
