import type { Constraint, Verdict } from './constraint';
import { pyStrip } from './text/py';

/**
 * How a constraint is applied to a response, as the IFEval and IFBench evaluators define it.
 * strict: the response as given (an empty one fails everything).
 * loose: it passes if any of eight variants passes — the response with its first line, last line,
 * or both removed, each also with every "*" deleted. Loose forgives a preamble or sign-off line and
 * markdown emphasis, and so can also forgive a real violation in the first or last line.
 */
export type Mode = 'strict' | 'loose';

const EMPTY: Verdict = { pass: false, reason: 'the response is empty' };

/** The loose variants in the references' order; the first is the response itself. */
export function looseVariants(response: string): string[] {
  const lines = response.split('\n');
  const dropFirst = pyStrip(lines.slice(1).join('\n'));
  const dropLast = pyStrip(lines.slice(0, -1).join('\n'));
  const dropBoth = pyStrip(lines.slice(1, -1).join('\n'));
  const noStars = (s: string): string => s.replace(/\*/g, '');
  return [response, noStars(response), dropFirst, dropLast, dropBoth, noStars(dropFirst), noStars(dropLast), noStars(dropBoth)];
}

export function evaluate<K>(constraint: Constraint<K>, response: string, kwargs: K, mode: Mode): Verdict {
  if (mode === 'strict') return pyStrip(response) === '' ? EMPTY : constraint.check(response, kwargs);
  let first: Verdict | undefined;
  for (const variant of looseVariants(response)) {
    if (pyStrip(variant) === '') continue;
    const v = constraint.check(variant, kwargs);
    if (v.pass) return v;
    first ??= v;
  }
  // The reason is the one for the response as written, the version a person would fix.
  return first ?? EMPTY;
}
