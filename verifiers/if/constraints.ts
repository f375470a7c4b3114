import { isJsonObject, type Json, type JsonObject } from '../../core/json';
import { depthFor, evaluate, type Mode } from '../../rubrics/evaluate';
import { constraintById } from '../../rubrics/lookup';
import { withMemo } from '../../rubrics/text/memo';

/** What the `constraints` pool task receives: one sample's final text and its constraint rubrics. */
export interface ConstraintsPayload {
  text: string;
  mode: Mode;
  rubrics: Array<{ id: string; kwargs: JsonObject }>;
}

export interface ConstraintVerdict {
  pass: boolean;
  reason: string;
}

/**
 * The CPU part of the verifier, run on the worker pool: every constraint rubric of one sample.
 * Pure and synchronous; the kwargs were validated with the label, so a failure here is a bug.
 * One memo scope for the sample: its rubrics share the response's sentences and tokens.
 */
export function checkConstraints(payload: Json): Json {
  const { text, mode, rubrics } = payload as unknown as ConstraintsPayload;
  return withMemo(depthFor(mode), () =>
    rubrics.map(({ id, kwargs }) => {
      const constraint = constraintById(id);
      if (!constraint) throw new Error(`unknown instruction id "${id}"`);
      const v = evaluate(constraint, text, constraint.kwargs.parse(kwargs), mode);
      return { pass: v.pass, reason: v.reason };
    }),
  );
}

export function toVerdicts(result: Json, expected: number): ConstraintVerdict[] {
  if (!Array.isArray(result) || result.length !== expected) throw new Error('constraints task: malformed result');
  return result.map((r) => {
    if (!isJsonObject(r) || typeof r.pass !== 'boolean' || typeof r.reason !== 'string') throw new Error('constraints task: malformed verdict');
    return { pass: r.pass, reason: r.reason };
  });
}
