import type { Budget } from './budget';
import {
  DivisionByZero,
  ONE,
  ZERO,
  exactRoot,
  isOne,
  isZero,
  q,
  qAdd,
  qBits,
  qInt,
  qInv,
  qMul,
  qNeg,
  qPowInt,
  qToString,
  type Q,
} from './rational';

/**
 * The canonical form of a scalar: a polynomial with exact rational coefficients over atoms.
 * Atoms are variables, the constants π, e, i and ∞, and anything the algebra does not expand
 * (function applications, non-integer powers, the reciprocal of a sum), each identified by a key
 * built from its canonical arguments. Square roots of rationals are reduced to `k·√m` with m
 * square-free and kept in the monomial, so `\sqrt{117}` and `3\sqrt{13}` have one form.
 */
export type AtomKind = 'sym' | 'pi' | 'e' | 'i' | 'inf' | 'fn' | 'pow' | 'recip' | 'opaque';

export interface Atom {
  readonly key: string;
  readonly kind: AtomKind;
  /** Function or variable name. */
  readonly name: string;
  readonly args: readonly Poly[];
}

export interface Term {
  readonly coef: Q;
  /** Square-free radicand of the term's square root; 1n when there is none. */
  readonly rad: bigint;
  /** Atoms with non-zero integer exponents, sorted by key. */
  readonly factors: ReadonlyArray<readonly [Atom, number]>;
  /** The monomial without its coefficient, e.g. `√2*x^2*y`. */
  readonly key: string;
}

export interface Poly {
  /** Sorted by monomial key; no zero coefficients. */
  readonly terms: readonly Term[];
  /** True when a decimal literal went into it: compared with the label's tolerance, not exactly. */
  readonly inexact: boolean;
}

export const atom = (kind: AtomKind, name: string, args: readonly Poly[] = []): Atom => ({
  key: args.length ? `${name}(${args.map(polyKey).join(',')})` : name,
  kind,
  name,
  args,
});

function monoKey(rad: bigint, factors: ReadonlyArray<readonly [Atom, number]>): string {
  const parts: string[] = rad === 1n ? [] : [`√${rad}`];
  for (const [a, e] of factors) parts.push(e === 1 ? a.key : `${a.key}^${e}`);
  return parts.join('*');
}

function term(coef: Q, rad: bigint, factors: ReadonlyArray<readonly [Atom, number]>): Term {
  return { coef, rad, factors, key: monoKey(rad, factors) };
}

export function constant(value: Q, inexact = false): Poly {
  return { terms: isZero(value) ? [] : [term(value, 1n, [])], inexact };
}

export function fromAtom(a: Atom): Poly {
  return { terms: [term(ONE, 1n, [[a, 1]])], inexact: a.args.some((p) => p.inexact) };
}

/** Square-free part by trial division; beyond the search bound the rest is kept as it is. */
export function splitSquare(n: bigint, budget?: Budget): { out: bigint; inside: bigint } {
  let out = 1n;
  let inside = 1n;
  let rest = n;
  for (let p = 2n; p * p <= rest && p < 20_000n; p += p === 2n ? 1n : 2n) {
    budget?.spend(1);
    let count = 0;
    while (rest % p === 0n) {
      rest /= p;
      count++;
    }
    if (count >= 2) out *= p ** BigInt(count >> 1);
    if (count & 1) inside *= p;
  }
  const root = exactRoot(rest, 2);
  if (root !== null) out *= root;
  else inside *= rest;
  return { out, inside };
}

export function polyKey(p: Poly): string {
  if (p.terms.length === 0) return '0';
  return p.terms
    .map((t) => {
      if (t.key === '') return qToString(t.coef);
      if (isOne(t.coef)) return t.key;
      if (t.coef.n === -1n && t.coef.d === 1n) return `-${t.key}`;
      return `${qToString(t.coef)}*${t.key}`;
    })
    .join(' + ')
    .replace(/\+ -/g, '- ');
}

function normalize(terms: Term[], inexact: boolean, budget?: Budget): Poly {
  const byKey = new Map<string, Term>();
  for (const t of terms) {
    const prev = byKey.get(t.key);
    byKey.set(t.key, prev ? term(qAdd(prev.coef, t.coef, budget), t.rad, t.factors) : t);
  }
  const out = [...byKey.values()].filter((t) => !isZero(t.coef));
  out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  budget?.checkTerms(out.length);
  return { terms: out, inexact };
}

export function add(a: Poly, b: Poly, budget?: Budget): Poly {
  budget?.spend(a.terms.length + b.terms.length);
  return normalize([...a.terms, ...b.terms], a.inexact || b.inexact, budget);
}

export function neg(a: Poly): Poly {
  return { terms: a.terms.map((t) => term(qNeg(t.coef), t.rad, t.factors)), inexact: a.inexact };
}

export function scale(a: Poly, k: Q, budget?: Budget): Poly {
  if (isZero(k)) return constant(ZERO, a.inexact);
  return { terms: a.terms.map((t) => term(qMul(t.coef, k, budget), t.rad, t.factors)), inexact: a.inexact };
}

function mulTerms(x: Term, y: Term, budget?: Budget): Term {
  let coef = qMul(x.coef, y.coef, budget);
  let rad = 1n;
  if (x.rad !== 1n || y.rad !== 1n) {
    const { out, inside } = splitSquare(x.rad * y.rad, budget);
    coef = qMul(coef, qInt(out), budget);
    rad = inside;
  }
  const exps = new Map<string, [Atom, number]>();
  for (const [a, e] of [...x.factors, ...y.factors]) {
    const prev = exps.get(a.key);
    exps.set(a.key, [a, (prev?.[1] ?? 0) + e]);
  }
  const factors: Array<readonly [Atom, number]> = [];
  for (const [a, e] of exps.values()) {
    if (a.kind === 'i') {
      // i² = -1: keep i^0 or i^1 and move the sign into the coefficient.
      const m = ((e % 4) + 4) % 4;
      if (m >= 2) coef = qNeg(coef);
      if (m % 2 === 1) factors.push([a, 1]);
    } else if (e !== 0) factors.push([a, e]);
  }
  factors.sort((p, r) => (p[0].key < r[0].key ? -1 : p[0].key > r[0].key ? 1 : 0));
  return term(coef, rad, factors);
}

export function mul(a: Poly, b: Poly, budget?: Budget): Poly {
  budget?.spend(a.terms.length * b.terms.length);
  budget?.checkTerms(a.terms.length * b.terms.length);
  const out: Term[] = [];
  for (const x of a.terms) for (const y of b.terms) out.push(mulTerms(x, y, budget));
  return normalize(out, a.inexact || b.inexact, budget);
}

export function constantValue(p: Poly): Q | null {
  if (p.terms.length === 0) return ZERO;
  const [only] = p.terms;
  return p.terms.length === 1 && only && only.key === '' ? only.coef : null;
}

/** The reciprocal of one monomial: exponents negated, `1/√m = √m/m`. */
function invertTerm(t: Term): Term {
  const coef = t.rad === 1n ? qInv(t.coef) : qMul(qInv(t.coef), q(1n, t.rad));
  return term(coef, t.rad, t.factors.map(([a, e]) => [a, -e] as const).filter(([a]) => a.kind !== 'i'));
}

/** Re-exported: the algebra's callers catch it as `P.DivisionByZero`. */
export { DivisionByZero };

export function reciprocal(b: Poly, budget?: Budget): Poly {
  if (b.terms.length === 0) throw new DivisionByZero('division by zero');
  if (b.terms.length === 1) {
    const t = b.terms[0] as Term;
    const inv = invertTerm(t);
    // 1/i = -i
    const hasI = t.factors.some(([a]) => a.kind === 'i');
    const withI = hasI ? mulTerms(inv, term(qInt(-1), 1n, [[atom('i', 'i'), 1]]), budget) : inv;
    return { terms: [withI], inexact: b.inexact };
  }
  // The reciprocal of a sum is an atom over the sum made monic, so 1/(2x+2) = (1/2)·1/(x+1).
  const lead = (b.terms[0] as Term).coef;
  const monic = scale(b, qInv(lead), budget);
  return scale(fromAtom(atom('recip', 'recip', [monic])), qInv(lead), budget);
}

export function div(a: Poly, b: Poly, budget?: Budget): Poly {
  return mul(a, reciprocal(b, budget), budget);
}

export function powInt(a: Poly, k: number, budget?: Budget): Poly {
  if (k === 0) return constant(ONE, a.inexact);
  if (k < 0) return powInt(reciprocal(a, budget), -k, budget);
  const c = constantValue(a);
  if (c !== null) return constant(qPowInt(c, BigInt(k), budget), a.inexact);
  if (a.terms.length === 1) {
    // One monomial: multiply exponents instead of expanding.
    budget?.checkBits(k * 8);
    let result: Poly = constant(ONE, a.inexact);
    let base = a;
    let e = k;
    while (e > 0) {
      if (e & 1) result = mul(result, base, budget);
      e >>= 1;
      if (e > 0) base = mul(base, base, budget);
    }
    return result;
  }
  // Expanding a sum to a high power: refuse before spending the work.
  if (k > 64) budget?.checkTerms(Number.MAX_SAFE_INTEGER);
  let result: Poly = constant(ONE, a.inexact);
  for (let i = 0; i < k; i++) result = mul(result, a, budget);
  return result;
}

/** c^(num/den) for a rational constant c when it has an exact or square-root form, else null. */
export function rationalPower(c: Q, exp: Q, inexact: boolean, budget?: Budget): Poly | null {
  const den = Number(exp.d);
  if (exp.d === 1n) return constant(qPowInt(c, exp.n, budget), inexact);
  if (den > 64) return null;
  const neg = c.n < 0n;
  if (neg && den % 2 === 0 && den !== 2) return null;
  const absN = neg ? -c.n : c.n;
  const rn = exactRoot(absN, den);
  const rd = exactRoot(c.d, den);
  if (rn !== null && rd !== null) {
    if (neg && den % 2 === 0) {
      // (-x)^(1/2) = i·√x
      const root = constant(q(rn, rd), inexact);
      return powInt(mul(root, fromAtom(atom('i', 'i')), budget), Number(exp.n), budget);
    }
    return constant(qPowInt(q(neg ? -rn : rn, rd), exp.n, budget), inexact);
  }
  if (den !== 2) return null;
  // √(n/d) = √(n·d)/d, then k·√m with m square-free.
  if (qBits(c) > 256) return null;
  const { out, inside } = splitSquare(absN * c.d, budget);
  let root: Poly = { terms: [term(q(out, c.d), inside, [])], inexact };
  if (inside === 1n) root = constant(q(out, c.d), inexact);
  if (neg) root = mul(root, fromAtom(atom('i', 'i')), budget);
  return powInt(root, Number(exp.n), budget);
}

/** True when every atom is a variable, π, e or i: equal forms are then the only way to be equal. */
export function isPolynomial(p: Poly): boolean {
  return p.terms.every((t) => t.factors.every(([a]) => a.kind === 'sym' || a.kind === 'pi' || a.kind === 'e' || a.kind === 'i'));
}

export function atomsOf(p: Poly, out = new Map<string, Atom>()): Map<string, Atom> {
  for (const t of p.terms) {
    for (const [a] of t.factors) {
      if (!out.has(a.key)) {
        out.set(a.key, a);
        for (const arg of a.args) atomsOf(arg, out);
      }
    }
  }
  return out;
}

export const ONE_POLY = constant(ONE);
