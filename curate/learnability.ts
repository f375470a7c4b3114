/**
 * The recipe's pass-rate gates on prompts, decided from Verdict's own verdicts. Only OK samples
 * count: an ABORTED sample is an infrastructure failure and an INVALID one a broken sample, neither
 * is the policy failing, so neither lowers a pass rate. A prompt with too few OK samples is
 * `undecided` — reported and written apart, never dropped as unlearnable.
 */

export type Mode =
  /** Keep prompts whose pass rate lies in the window (the recipe's learnability band, (0, 0.8]). */
  | { kind: 'window'; window: Interval }
  /** A teacher's rollouts: keep a prompt if any OK sample earns reward > 0. */
  | { kind: 'correctness' }
  /** Keep if the passes among the first `of` OK samples number from `min` to `max` (Search Agent: 1..3 of 8). */
  | { kind: 'count'; min: number; max: number; of: number }
  /** Drop a prompt every OK sample passes (Coding RL's n = 4 warm-up). */
  | { kind: 'drop-all-pass' };

export interface Interval {
  low: number;
  high: number;
  lowOpen: boolean;
  highOpen: boolean;
}

export interface Tally {
  ok: number;
  aborted: number;
  invalid: number;
  /** OK samples with reward ≥ the pass reward. */
  passed: number;
  /** OK samples with reward > 0. */
  positive: number;
  /** Passes among the first `of` OK samples (count mode), in input order. */
  passedFirst: number;
}

export type Decision = 'kept' | 'dropped' | 'undecided';

export interface Verdict {
  decision: Decision;
  /** Why: `in_window`, `too_easy`, `unlearnable`, `solvable`, `no_positive`, `count_in_range`, `count_outside`, `not_all_pass`, `all_pass`, `too_few_ok`, `all_invalid`. */
  reason: string;
  /** Pass rate over OK samples; null without OK samples. */
  rate: number | null;
}

export function newTally(): Tally {
  return { ok: 0, aborted: 0, invalid: 0, passed: 0, positive: 0, passedFirst: 0 };
}

export function addSample(tally: Tally, status: string, reward: number | null, passReward: number, mode: Mode): void {
  if (status === 'OK' && reward !== null) {
    const pass = reward >= passReward;
    if (mode.kind === 'count' && tally.ok < mode.of && pass) tally.passedFirst++;
    tally.ok++;
    if (pass) tally.passed++;
    if (reward > 0) tally.positive++;
  } else if (status === 'ABORTED') tally.aborted++;
  else tally.invalid++;
}

/** The fewest OK samples each mode decides on unless told otherwise (count mode: exactly its `of`). */
export function defaultMinOk(mode: Mode): number {
  switch (mode.kind) {
    case 'correctness':
      return 1;
    case 'count':
      return mode.of;
    default:
      return 4;
  }
}

export function inInterval(x: number, i: Interval): boolean {
  const aboveLow = i.lowOpen ? x > i.low : x >= i.low;
  const belowHigh = i.highOpen ? x < i.high : x <= i.high;
  return aboveLow && belowHigh;
}

export function decide(tally: Tally, mode: Mode, minOk: number): Verdict {
  const rate = tally.ok > 0 ? tally.passed / tally.ok : null;
  if (tally.ok === 0 && tally.aborted === 0 && tally.invalid > 0) return { decision: 'dropped', reason: 'all_invalid', rate };
  // "c of 8" is a count of 8 samples: count mode never decides on fewer, whatever --min-ok says.
  const fewest = mode.kind === 'count' ? Math.max(minOk, mode.of) : minOk;
  if (tally.ok < fewest) return { decision: 'undecided', reason: 'too_few_ok', rate };
  switch (mode.kind) {
    case 'window': {
      if (inInterval(rate!, mode.window)) return { decision: 'kept', reason: 'in_window', rate };
      const below = mode.window.lowOpen ? rate! <= mode.window.low : rate! < mode.window.low;
      return { decision: 'dropped', reason: below ? 'unlearnable' : 'too_easy', rate };
    }
    case 'correctness':
      return tally.positive > 0 ? { decision: 'kept', reason: 'solvable', rate } : { decision: 'dropped', reason: 'no_positive', rate };
    case 'count':
      return tally.passedFirst >= mode.min && tally.passedFirst <= mode.max ? { decision: 'kept', reason: 'count_in_range', rate } : { decision: 'dropped', reason: 'count_outside', rate };
    case 'drop-all-pass':
      return tally.passed === tally.ok ? { decision: 'dropped', reason: 'all_pass', rate } : { decision: 'kept', reason: 'not_all_pass', rate };
  }
}

/** `(0,0.8]`, `[0.2, 0.9)`: brackets say whether an end is included. */
export function parseInterval(text: string): { ok: true; interval: Interval } | { ok: false; error: string } {
  const m = /^\s*([[(])\s*([0-9.]+)\s*,\s*([0-9.]+)\s*([\])])\s*$/.exec(text);
  if (!m) return { ok: false, error: `"${text}": expected an interval such as (0,0.8] — "(" or ")" leaves an end out, "[" or "]" keeps it` };
  const low = Number(m[2]);
  const high = Number(m[3]);
  if (!Number.isFinite(low) || !Number.isFinite(high) || low < 0 || high > 1 || low > high) return { ok: false, error: `"${text}": the ends must be rates with 0 ≤ low ≤ high ≤ 1` };
  return { ok: true, interval: { low, high, lowOpen: m[1] === '(', highOpen: m[4] === ')' } };
}

export function formatInterval(i: Interval): string {
  return `${i.lowOpen ? '(' : '['}${i.low},${i.high}${i.highOpen ? ')' : ']'}`;
}

/** Pass-rate histogram: exactly 0, ten tenths (0,0.1] … (0.9,1), exactly 1. */
export const HISTOGRAM_BINS = ['0', '(0,.1]', '(.1,.2]', '(.2,.3]', '(.3,.4]', '(.4,.5]', '(.5,.6]', '(.6,.7]', '(.7,.8]', '(.8,.9]', '(.9,1)', '1'] as const;

export function histogramBin(rate: number): number {
  if (rate <= 0) return 0;
  if (rate >= 1) return HISTOGRAM_BINS.length - 1;
  return Math.min(10, Math.ceil(rate * 10 - 1e-9));
}
