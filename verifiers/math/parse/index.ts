import { TooComplex, type BudgetLimits } from '../budget';
import type { Node } from './ast';
import { LexError, tokenize } from './lexer';
import { ParseError, Parser } from './parser';

export type { Node } from './ast';

export interface ParseOptions {
  /**
   * The answer came from plain prose rather than LaTeX: `1,22` and `2,74` are then decimal commas
   * (inside LaTeX a comma separates answers).
   */
  plain: boolean;
}

export type ParseResult = { ok: true; node: Node } | { ok: false; error: string };

const THOUSANDS = /^([-+]?)([1-9]\d{0,2}(?:,\d{3})+|[1-9]\d{0,2}(?: \d{3})+)(\.\d+)?$/;
const DECIMAL_COMMA = /^([-+]?\d+),(\d+)$/;
const MIXED = /^(\d+)\s+(\d+)\s*\/\s*(\d+)$/;

/**
 * Whole-answer number forms that only make sense for the answer as a whole: `7,425,000` and
 * `1 000` (thousands), `1000,99` in prose (decimal comma), `3 1/2` (mixed number).
 */
function normalizeWholeNumber(text: string, plain: boolean): string {
  const thousands = THOUSANDS.exec(text);
  if (thousands) return `${thousands[1]}${(thousands[2] as string).replace(/[, ]/g, '')}${thousands[3] ?? ''}`;
  if (plain) {
    const comma = DECIMAL_COMMA.exec(text);
    if (comma) return `${comma[1]}.${comma[2]}`;
  }
  const mixed = MIXED.exec(text);
  if (mixed) return `${mixed[1]}+${mixed[2]}/${mixed[3]}`;
  return text;
}

/**
 * Where the run of `chars` that ends `s` starts (`s.length` when it ends with none). Found from the
 * end: a pattern such as `/[.,;:]+$/` is tried from every character of a run that does not end the
 * text, quadratic in the run.
 */
function trailingRun(s: string, chars: string): number {
  let i = s.length;
  while (i > 0 && chars.includes(s[i - 1]!)) i--;
  return i;
}

/** Strips what surrounds an answer: math delimiters, currency, a sentence's final full stop. */
export function trimAnswer(text: string): string {
  let s = text.trim();
  for (let i = 0; i < 4; i++) {
    const before = s;
    s = s.replace(/^\\[([]|\\[)\]]$/g, '').replace(/^\$+/, '');
    s = s.slice(0, trailingRun(s, '$')).replace(/^\\\$|^[$€£¥]/, '');
    // A final full stop goes, but not the ellipsis of a repeating decimal (`0.333...`).
    const stop = trailingRun(s, '.,;:');
    const ellipsis = /^\.{3,4}$/.test(s.slice(stop)) && /\d$/.test(s.slice(0, stop));
    s = s.slice(0, stop) + (ellipsis ? '...' : '');
    s = s.replace(/^\*\*|\*\*$/g, '').trim();
    if (s === before) break;
  }
  return s;
}

/** Parses one extracted answer into its AST. */
export function parseAnswer(text: string, options: ParseOptions, limits: BudgetLimits): ParseResult {
  if (text.length > limits.maxAnswerChars) throw new TooComplex('maxAnswerChars');
  const trimmed = normalizeWholeNumber(trimAnswer(text), options.plain);
  try {
    const tokens = tokenize(trimmed, limits.maxTokens);
    return { ok: true, node: new Parser(tokens, limits.maxDepth).parseAnswer() };
  } catch (error) {
    if (error instanceof ParseError || error instanceof LexError) return { ok: false, error: error.message };
    throw error;
  }
}
