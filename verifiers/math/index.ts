import { z } from 'zod';
import type { JsonObject } from '../../core/json';
import { textOrNumber } from '../../core/label';
import { invalid, ok, type Outcome } from '../../core/sample';
import { finalText } from '../../core/text';
import { definePure } from '../../core/verifier';
import { Budget, DEFAULT_LIMITS, TooComplex } from './budget';
import { canonicalize, NotAValue, show, type Value } from './canonical';
import { UndefinedForm } from './extended';
import { Comparer } from './compare';
import { extractAnswer, extractGold, type Extracted } from './extract';
import { parseAnswer } from './parse';

/*
 * The math verifier: extraction → parsing → canonicalization → comparison (see README.md here).
 *
 * The design card suggested math-expression-evaluator for plain arithmetic. It is not used: it
 * evaluates in float64 (1/3 + 1/3 + 1/3 is not exactly 1, and 10^20 + 1 equals 10^20), reads plain
 * infix only (no LaTeX, no implicit products, no `\pm`, no sets), and has no symbols. Verdict needs
 * exact BigInt rationals for every rational answer and symbolic forms for the rest, so the
 * project's own evaluator (canonical.ts over poly.ts) handles plain arithmetic too, with one set of
 * rules and one operation budget.
 */

export const DEFAULT_PRECISION = 6;

const required = (what: string) => (issue: { input: unknown }) => (issue.input === undefined ? 'required' : `expected ${what}`);

export const mathLabel = z.strictObject({
  gold: textOrNumber(required('a string'))
    .refine((s) => s.trim() !== '', 'empty')
    .describe('The reference answer: LaTeX or plain text, with or without $…$ and \\boxed{}; a number (gsm8k\'s 42) is read as its text'),
  extract: z
    .enum(['boxed', 'boxed_then_last'])
    .default('boxed_then_last')
    .describe('boxed: only \\boxed{}; boxed_then_last: then "final answer is", "Answer:", the last math span or number'),
  precision: z
    .number()
    .int()
    .min(0)
    .max(15)
    .default(DEFAULT_PRECISION)
    .describe('Decimal places to which an answer written as a decimal must agree'),
  strict: z.boolean().default(true).describe('Variable names matter (false: f(x) equals f(y))'),
});
export type MathLabel = z.output<typeof mathLabel>;

interface ParsedGold {
  extracted: Extracted;
  value: Value;
}

type GoldResult = { ok: true; gold: ParsedGold } | { ok: false; reason: string };

/** Parsed golds of this worker: the 16–64 rollouts of one prompt share one parse. */
const GOLD_CACHE_SIZE = 4096;
const goldCache = new Map<string, GoldResult>();

/** Empties this worker's gold cache (benchmarks measure the cold path with it). */
export function clearGoldCache(): void {
  goldCache.clear();
}

export function parseGold(gold: string, strict: boolean): GoldResult {
  const key = `${strict ? 's' : 'n'}\u0000${gold}`;
  const cached = goldCache.get(key);
  if (cached) return cached;
  const result = parseGoldUncached(gold, strict);
  if (goldCache.size >= GOLD_CACHE_SIZE) goldCache.delete(goldCache.keys().next().value as string);
  goldCache.set(key, result);
  return result;
}

function parseGoldUncached(gold: string, strict: boolean): GoldResult {
  const extracted = extractGold(gold);
  if (!extracted) return { ok: false, reason: 'empty' };
  try {
    const parsed = parseAnswer(extracted.text, { plain: extracted.plain }, DEFAULT_LIMITS);
    if (!parsed.ok) return { ok: false, reason: `unparseable (${parsed.error})` };
    return { ok: true, gold: { extracted, value: canonicalize(parsed.node, new Budget(), { strict }) } };
  } catch (error) {
    if (error instanceof TooComplex) return { ok: false, reason: `too complex (${error.limit})` };
    if (error instanceof NotAValue) return { ok: false, reason: `unparseable (${error.message})` };
    if (error instanceof UndefinedForm) return { ok: false, reason: `an undefined form (${error.form})` };
    throw error;
  }
}

/** Whitespace- and delimiter-insensitive spelling, so two answers written identically always match. */
function rawForm(text: string): string {
  return text.replace(/\s+|\\[,;:! ]|\$|\\left|\\right/g, '');
}

function parsesAsAnswer(extracted: Extracted): boolean {
  try {
    return parseAnswer(extracted.text, { plain: extracted.plain }, DEFAULT_LIMITS).ok;
  } catch (error) {
    if (error instanceof TooComplex) return false;
    throw error;
  }
}

export function scoreMath(response: string, label: MathLabel): Outcome {
  const gold = parseGold(label.gold, label.strict);
  if (!gold.ok) return invalid(`label.gold: ${gold.reason}`);
  const text = finalText(response);
  if (text === null) return ok(0, 'no_answer', { unclosed_think: true });
  let extracted = extractAnswer(text, label.extract);
  if (!extracted) return ok(0, 'no_answer');
  if (extracted.fallback && !parsesAsAnswer(extracted)) extracted = extracted.fallback;
  const details: JsonObject = {
    extracted: extracted.text.slice(0, 512),
    extract_rule: extracted.rule,
    gold_canonical: show(gold.gold.value),
  };
  if (rawForm(extracted.text) === rawForm(gold.gold.extracted.text)) return ok(1, 'correct', { ...details, match: 'identical' });
  const budget = new Budget();
  try {
    const parsed = parseAnswer(extracted.text, { plain: extracted.plain }, DEFAULT_LIMITS);
    if (!parsed.ok) return ok(0, 'unparseable_answer', { ...details, error: parsed.error });
    const value = canonicalize(parsed.node, budget, { strict: label.strict });
    details.answer_canonical = show(value);
    const rule = new Comparer({ precision: label.precision }, budget).compare(gold.gold.value, value);
    return rule ? ok(1, 'correct', { ...details, match: rule }) : ok(0, 'wrong_answer', details);
  } catch (error) {
    if (error instanceof TooComplex) return ok(0, 'too_complex', { ...details, limit: error.limit });
    if (error instanceof NotAValue) return ok(0, 'unparseable_answer', { ...details, error: error.message });
    if (error instanceof UndefinedForm) return ok(0, 'undefined_form', { ...details, form: error.form });
    throw error;
  }
}

export const math = definePure({
  name: 'math',
  version: '1.3.1',
  audit: ['answers'],
  example: { label: { gold: '0.5' }, response: 'Halving 1 gives \\boxed{\\frac{1}{2}}', reward: 1 },
  description:
    'Math answers: the last \\boxed{} (or a stated final answer) after </think>, parsed from LaTeX or plain text, canonicalized with exact rationals, compared with the gold',
  label: mathLabel,
  score({ response, label }) {
    return scoreMath(response, label);
  },
});
