import type { Budget } from './budget';

/** An exact rational n/d with d > 0 and gcd(n, d) = 1. */
export interface Q {
  readonly n: bigint;
  readonly d: bigint;
}

export const ZERO: Q = { n: 0n, d: 1n };
export const ONE: Q = { n: 1n, d: 1n };

function abs(x: bigint): bigint {
  return x < 0n ? -x : x;
}

export function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/**
 * A division by zero anywhere in the arithmetic (`1/0`, and `0^{-1}` through `qInv`): one class, so
 * canonicalization turns each into "not a value". A RangeError from `q` once escaped that, and
 * `\boxed{0^{-1}}` ABORTED the sample instead of scoring 0.
 */
export class DivisionByZero extends Error {}

export function q(n: bigint, d: bigint = 1n): Q {
  if (d === 0n) throw new DivisionByZero('division by zero');
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  if (d === 1n) return { n, d };
  const g = gcd(n, d);
  return g === 1n ? { n, d } : { n: n / g, d: d / g };
}

export function qInt(n: number | bigint): Q {
  return { n: BigInt(n), d: 1n };
}

export const isZero = (a: Q): boolean => a.n === 0n;
export const isOne = (a: Q): boolean => a.n === 1n && a.d === 1n;

/** Bits of the larger of numerator and denominator: the size every budget check counts. */
export function qBits(a: Q): number {
  const n = abs(a.n);
  const m = n > a.d ? n : a.d;
  return m === 0n ? 0 : m.toString(16).length * 4;
}

function charge(budget: Budget | undefined, ...xs: Q[]): void {
  if (!budget) return;
  let bits = 0;
  for (const x of xs) bits += qBits(x);
  budget.spend(1 + (bits >> 6));
  budget.checkBits(bits);
}

export function qAdd(a: Q, b: Q, budget?: Budget): Q {
  charge(budget, a, b);
  if (a.d === 1n && b.d === 1n) return { n: a.n + b.n, d: 1n };
  return q(a.n * b.d + b.n * a.d, a.d * b.d);
}

export function qSub(a: Q, b: Q, budget?: Budget): Q {
  return qAdd(a, qNeg(b), budget);
}

export function qNeg(a: Q): Q {
  return { n: -a.n, d: a.d };
}

export function qMul(a: Q, b: Q, budget?: Budget): Q {
  charge(budget, a, b);
  if (a.d === 1n && b.d === 1n) return { n: a.n * b.n, d: 1n };
  return q(a.n * b.n, a.d * b.d);
}

export function qInv(a: Q): Q {
  return q(a.d, a.n);
}

export function qCmp(a: Q, b: Q): number {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l < r ? -1 : l > r ? 1 : 0;
}

export function qAbs(a: Q): Q {
  return a.n < 0n ? qNeg(a) : a;
}

/** a^k for an integer k; the budget refuses results that would exceed its size limit before computing them. */
export function qPowInt(a: Q, k: bigint, budget?: Budget): Q {
  if (k === 0n) return ONE;
  if (k < 0n) return qPowInt(qInv(a), -k, budget);
  if (a.n === 0n || isOne(a)) return a;
  if (a.n === -1n && a.d === 1n) return k % 2n === 0n ? ONE : a;
  const predicted = Number(k) * Math.max(1, qBits(a));
  budget?.checkBits(predicted);
  budget?.spend(1 + (predicted >> 6));
  return { n: a.n ** k, d: a.d ** k };
}

export function qToNumber(a: Q): number {
  const n = Number(a.n);
  const d = Number(a.d);
  if (Number.isFinite(n) && Number.isFinite(d)) return n / d;
  // Both huge: scale down by the same power of two before dividing.
  const shift = BigInt(Math.max(0, Math.max(a.n.toString(2).length, a.d.toString(2).length) - 1000));
  return Number(a.n >> shift) / Number(a.d >> shift);
}

export function qToString(a: Q): string {
  return a.d === 1n ? a.n.toString() : `${a.n}/${a.d}`;
}

/** The integer k-th root of a non-negative integer when it is exact, else null. */
export function exactRoot(x: bigint, k: number): bigint | null {
  if (x < 0n) return null;
  if (x < 2n) return x;
  const K = BigInt(k);
  if (x < 2n ** 50n) {
    const approx = BigInt(Math.round(Math.pow(Number(x), 1 / k)));
    for (const c of [approx - 1n, approx, approx + 1n]) if (c >= 0n && c ** K === x) return c;
    return null;
  }
  // Newton's method on integers from an overestimate: the iterates fall to floor(x^(1/k)).
  let r = 1n << BigInt(Math.ceil(x.toString(2).length / k) + 1);
  for (;;) {
    const next = ((K - 1n) * r + x / r ** (K - 1n)) / K;
    if (next >= r) break;
    r = next;
  }
  return r ** K === x ? r : null;
}

/** Parses a decimal literal such as "12.50" or ".4" into an exact rational. */
export function qFromDecimal(text: string): Q {
  const [intPart = '', frac = ''] = text.split('.');
  const digits = (intPart === '' ? '0' : intPart) + frac;
  return q(BigInt(digits), 10n ** BigInt(frac.length));
}

/** A repeating decimal `int.frac(rep)` such as 0.1(6) = 1/6, exactly. */
export function qFromRepeating(text: string, rep: string): Q {
  const [intPart = '', frac = ''] = text.split('.');
  const head = BigInt((intPart === '' ? '0' : intPart) + frac);
  const whole = BigInt((intPart === '' ? '0' : intPart) + frac + rep);
  return q(whole - head, 10n ** BigInt(frac.length) * (10n ** BigInt(rep.length) - 1n));
}
