import type { Constraint, Verdict } from '../../rubrics/constraint';

/** Runs one checker as the verifier does after label validation: kwargs parsed by its schema first. */
export function checkWith(constraint: Constraint, response: string, kwargs: object = {}): Verdict {
  return constraint.check(response, constraint.kwargs.parse(kwargs));
}

/** Whether one checker passes. */
export function passes(constraint: Constraint, response: string, kwargs: object = {}): boolean {
  return checkWith(constraint, response, kwargs).pass;
}
