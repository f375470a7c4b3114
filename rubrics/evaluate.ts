import type { Constraint, Verdict } from './constraint';
import { type Depth, withMemo } from './text/memo';
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

const noStars = (s: string): string => (s.includes('*') ? s.replace(/\*/g, '') : s);

/**
 * The loose variants in the references' order; the first is the response itself. Generated one
 * at a time: most responses pass on an early variant, and the rest are not built.
 */
function* variants(response: string): Generator<string> {
  yield response;
  yield noStars(response);
  // `"\n".join(lines[1:])` and the like, as slices: with no newline each is empty, and with one,
  // dropping both lines leaves nothing.
  const firstBreak = response.indexOf('\n');
  const lastBreak = response.lastIndexOf('\n');
  const dropFirst = firstBreak < 0 ? '' : pyStrip(response.slice(firstBreak + 1));
  yield dropFirst;
  const dropLast = lastBreak < 0 ? '' : pyStrip(response.slice(0, lastBreak));
  yield dropLast;
  const dropBoth = firstBreak < 0 ? '' : pyStrip(response.slice(firstBreak + 1, lastBreak));
  yield dropBoth;
  yield noStars(dropFirst);
  yield noStars(dropLast);
  yield noStars(dropBoth);
}

export function looseVariants(response: string): string[] {
  return [...variants(response)];
}

/**
 * One constraint on one response. Text analyses are memoized for the call (rubrics/text/memo.ts),
 * so the loose variants share their sentences and tokens; a caller checking several constraints
 * on one response can wrap them all in one `withMemo`.
 */
export function evaluate<K>(constraint: Constraint<K>, response: string, kwargs: K, mode: Mode): Verdict {
  return withMemo(depthFor(mode), () => (mode === 'strict' ? strict(constraint, response, kwargs) : loose(constraint, response, kwargs)));
}

/** Loose mode analyses variants of one text, which share their sentences and periods. */
export function depthFor(mode: Mode): Depth {
  return mode === 'loose' ? 'parts' : 'texts';
}

function strict<K>(constraint: Constraint<K>, response: string, kwargs: K): Verdict {
  return pyStrip(response) === '' ? EMPTY : constraint.check(response, kwargs);
}

function loose<K>(constraint: Constraint<K>, response: string, kwargs: K): Verdict {
  let first: Verdict | undefined;
  // A variant equal to one already checked (no "*" to delete, a one-line response) would get the
  // same verdict from a pure checker: it is skipped.
  const checked: string[] = [];
  for (const variant of variants(response)) {
    if (checked.includes(variant)) continue;
    checked.push(variant);
    if (pyStrip(variant) === '') continue;
    const v = constraint.check(variant, kwargs);
    if (v.pass) return v;
    first ??= v;
  }
  // The reason is the one for the response as written, the version a person would fix.
  return first ?? EMPTY;
}
