import { evalPoly, Point } from './numeric';
import * as P from './poly';
import { qCmp, qInt, type Q } from './rational';

/**
 * Arithmetic on ∞ by the rules of the extended reals. The polynomial algebra treats ∞ as an atom,
 * which would simplify `42 + ∞ − ∞` to 42, `0·∞` to 0 and `∞/∞` to 1: each operation that meets an
 * infinite operand is therefore decided here first. The undefined forms (∞ − ∞, 0·∞, ∞/∞, ∞⁰, 1^∞,
 * …) are not values at all: they throw `UndefinedForm`, so an answer containing one equals nothing.
 *
 * An operand is *infinite* when every term carrying ∞ is a constant multiple of a positive power of
 * ∞ with the same sign; one whose ∞ is tangled with a variable (`x·∞`) is left to the algebra.
 */
export class UndefinedForm extends Error {
  constructor(readonly form: string) {
    super(`undefined form ${form}`);
  }
}

type Sign = 1 | -1;
type Kind = { t: 'finite' } | { t: 'inf'; sign: Sign } | { t: 'tangled' };

const INF_ATOM = P.atom('inf', '∞');

export function infinity(sign: Sign): P.Poly {
  const p = P.fromAtom(INF_ATOM);
  return sign > 0 ? p : P.neg(p);
}

function kindOf(p: P.Poly): Kind {
  let sign: Sign | 0 = 0;
  for (const term of p.terms) {
    const inf = term.factors.find(([a]) => a.kind === 'inf');
    if (!inf) continue;
    if (term.factors.length !== 1 || inf[1] < 1) return { t: 'tangled' };
    const s: Sign = term.coef.n > 0n ? 1 : -1;
    // Two infinities of opposite signs in one sum can only come from the algebra itself (every sum
    // of infinite operands is decided below), but they are ∞ − ∞ all the same.
    if (sign !== 0 && sign !== s) throw new UndefinedForm('∞ − ∞');
    sign = s;
  }
  return sign === 0 ? { t: 'finite' } : { t: 'inf', sign };
}

/** The sign of a constant, 0 for zero, null when it has variables or is not a real number. */
function signOf(p: P.Poly): -1 | 0 | 1 | null {
  const c = P.constantValue(p);
  if (c !== null) return c.n === 0n ? 0 : c.n > 0n ? 1 : -1;
  for (const a of P.atomsOf(p).values()) if (a.kind === 'sym' || a.kind === 'opaque' || a.kind === 'i' || a.kind === 'inf') return null;
  const v = evalPoly(p, new Point(0)).v;
  if (!Number.isFinite(v.re) || Math.abs(v.im) > 1e-12 || Math.abs(v.re) < 1e-12) return null;
  return v.re > 0 ? 1 : -1;
}

/** a + b, or null when neither is infinite (the algebra decides). */
export function extAdd(a: P.Poly, b: P.Poly): P.Poly | null {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka.t === 'tangled' || kb.t === 'tangled' || (ka.t !== 'inf' && kb.t !== 'inf')) return null;
  if (ka.t === 'inf' && kb.t === 'inf') {
    if (ka.sign !== kb.sign) throw new UndefinedForm('∞ − ∞');
    return infinity(ka.sign);
  }
  return infinity(ka.t === 'inf' ? ka.sign : (kb as { sign: Sign }).sign);
}

/** a · b, or null when neither is infinite or the sign of the finite factor is unknown. */
export function extMul(a: P.Poly, b: P.Poly): P.Poly | null {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka.t === 'tangled' || kb.t === 'tangled' || (ka.t !== 'inf' && kb.t !== 'inf')) return null;
  if (ka.t === 'inf' && kb.t === 'inf') return infinity((ka.sign * kb.sign) as Sign);
  const [inf, other] = ka.t === 'inf' ? [ka, b] : [kb as { sign: Sign }, a];
  const s = signOf(other);
  if (s === 0) throw new UndefinedForm('0 · ∞');
  if (s === null) return null;
  return infinity((inf.sign * s) as Sign);
}

/** num / den, or null when neither is infinite or a sign is unknown. */
export function extDiv(num: P.Poly, den: P.Poly): P.Poly | null {
  const kn = kindOf(num);
  const kd = kindOf(den);
  if (kn.t === 'tangled' || kd.t === 'tangled' || (kn.t !== 'inf' && kd.t !== 'inf')) return null;
  if (kn.t === 'inf' && kd.t === 'inf') throw new UndefinedForm('∞/∞');
  if (kd.t === 'inf') return P.constant(qInt(0));
  const s = signOf(den);
  if (s === 0) throw new P.DivisionByZero();
  if (s === null) return null;
  return infinity(((kn as { sign: Sign }).sign * s) as Sign);
}

/** base ^ exp, or null when neither is infinite or the rule needs what is not known. */
export function extPow(base: P.Poly, exp: P.Poly): P.Poly | null {
  const kb = kindOf(base);
  const ke = kindOf(exp);
  if (kb.t === 'tangled' || ke.t === 'tangled' || (kb.t !== 'inf' && ke.t !== 'inf')) return null;
  if (kb.t === 'inf' && ke.t === 'inf') {
    if (kb.sign < 0) throw new UndefinedForm('(−∞)^∞');
    return ke.sign > 0 ? infinity(1) : P.constant(qInt(0));
  }
  if (kb.t === 'inf') {
    const e = P.constantValue(exp);
    if (e === null) {
      const s = signOf(exp);
      if (s === null || kb.sign < 0) return null;
      if (s === 0) throw new UndefinedForm('∞⁰');
      return s > 0 ? infinity(1) : P.constant(qInt(0));
    }
    if (e.n === 0n) throw new UndefinedForm('∞⁰');
    if (e.n < 0n) return P.constant(qInt(0));
    if (kb.sign > 0) return infinity(1);
    if (e.d !== 1n) throw new UndefinedForm('(−∞)^(p/q)');
    return infinity(e.n % 2n === 0n ? 1 : -1);
  }
  return powToInfinity(P.constantValue(base), (ke as { sign: Sign }).sign);
}

/** c^(±∞) for a rational c: 0, ∞, or an undefined form (1^∞, and bases where the sign oscillates). */
function powToInfinity(c: Q | null, sign: Sign): P.Poly | null {
  if (c === null) return null;
  const one = qInt(1);
  const minusOne = qInt(-1);
  const vsOne = qCmp(c, one);
  if (vsOne === 0) throw new UndefinedForm('1^∞');
  if (qCmp(c, minusOne) === 0) throw new UndefinedForm('(−1)^∞');
  const absBelowOne = qCmp(c, one) < 0 && qCmp(c, minusOne) > 0;
  if (sign > 0) {
    if (absBelowOne) return P.constant(qInt(0));
    if (vsOne > 0) return infinity(1);
    throw new UndefinedForm('c^∞ with c < −1');
  }
  if (!absBelowOne) return P.constant(qInt(0));
  if (c.n > 0n) return infinity(1);
  throw new UndefinedForm(c.n === 0n ? '0^(−∞)' : 'c^(−∞) with −1 < c < 0');
}
