import { z } from 'zod';
import type { JsonObject } from '../core/json';

/** One checker's decision; `reason` says what to fix when it fails ("found 4 paragraphs, expected 3"). */
export interface Verdict {
  pass: boolean;
  reason: string;
}

export const PASS: Verdict = { pass: true, reason: '' };

export function verdict(pass: boolean, failReason: string): Verdict {
  return pass ? PASS : { pass: false, reason: failReason };
}

export function fail(reason: string): Verdict {
  return { pass: false, reason };
}

/** A response the checker must pass or fail, kept beside it and run by the unit tests. */
export interface Example {
  response: string;
  kwargs?: JsonObject;
  pass: boolean;
}

/** Where an instruction id comes from: its semantics are that reference's. */
export type Source = 'ifeval' | 'ifbench';

export interface Constraint<K = unknown> {
  /** The instruction id exactly as the datasets spell it ("length_constraints:number_words"). */
  id: string;
  source: Source;
  /** The kwargs, as the dataset rows carry them; strict, so a misspelt kwarg is a label error. */
  kwargs: z.ZodType<K>;
  /** Pure and synchronous: one response, validated kwargs, one verdict. */
  check(response: string, kwargs: K): Verdict;
  examples: readonly Example[];
}

export function defineConstraint<S extends z.ZodType>(c: {
  id: string;
  source: Source;
  kwargs: S;
  check(response: string, kwargs: z.output<S>): Verdict;
  examples: readonly Example[];
}): Constraint {
  return c as unknown as Constraint;
}

/** Constraints that take no kwargs. */
export const NO_KWARGS = z.strictObject({});

const required = (issue: { input?: unknown }): string | undefined => (issue.input === undefined ? 'required' : undefined);

/**
 * Kwarg types. A kwarg the reference would fill with a random value when it is missing (or
 * negative, or falsy, as each reference tests) is required here: a reward must not be drawn.
 */
export const kw = {
  str: () => z.string({ error: required }),
  nonEmptyStr: () => z.string({ error: required }).min(1, 'required (non-empty)'),
  /** A count the reference compares against; floats are accepted as IFBench ships them (128.0). */
  count: () => z.number({ error: required }).nonnegative(),
  /** A count the reference uses as an index: an integer. */
  index: () => z.number({ error: required }).int().positive(),
  relation: () => z.enum(['less than', 'at least'], { error: required }),
  list: <T extends z.ZodType>(item: T) => z.array(item, { error: required }).min(1, 'required (non-empty)'),
};

/** Relations as IFEval spells them: "less than" is <, "at least" is >=. */
export function compare(actual: number, relation: 'less than' | 'at least', threshold: number): boolean {
  return relation === 'less than' ? actual < threshold : actual >= threshold;
}

export function relationText(relation: 'less than' | 'at least', threshold: number): string {
  return relation === 'less than' ? `fewer than ${threshold}` : `at least ${threshold}`;
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
