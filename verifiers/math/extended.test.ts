import { extAdd, extDiv, extMul, extPow, infinity, UndefinedForm } from './extended';
import * as P from './poly';
import { q, qInt } from './rational';

const n = (k: number) => P.constant(qInt(k));
const frac = (a: bigint, b: bigint) => P.constant(q(a, b));
const x = P.fromAtom(P.atom('sym', 'x'));
const pi = P.fromAtom(P.atom('pi', 'π'));
const INF = infinity(1);
const NEG_INF = infinity(-1);
const key = (p: P.Poly | null) => (p === null ? null : P.polyKey(p));

/** The undefined form an operation throws, or null when it returns. */
function form(op: () => unknown): string | null {
  try {
    op();
    return null;
  } catch (e) {
    if (e instanceof UndefinedForm) return e.form;
    throw e;
  }
}

describe('extended reals: the operations the polynomial algebra would get wrong', () => {
  it('adds a finite value to ∞ as ∞, and refuses ∞ − ∞ (which the algebra would cancel to 0)', () => {
    expect(key(extAdd(INF, n(42)))).toBe(key(INF));
    expect(key(extAdd(n(-7), NEG_INF))).toBe(key(NEG_INF));
    expect(key(extAdd(INF, INF))).toBe(key(INF));
    expect(form(() => extAdd(INF, NEG_INF))).toBe('∞ − ∞');
    // A sum that already holds ±∞ is ∞ − ∞ as well.
    expect(form(() => extAdd(P.add(INF, P.neg(P.powInt(INF, 2))), n(1)))).toBe('∞ − ∞');
  });

  it('leaves sums without ∞, and ∞ tangled with a variable, to the algebra', () => {
    expect(extAdd(n(1), x)).toBeNull();
    expect(extAdd(P.mul(x, INF), n(1))).toBeNull();
    expect(extMul(P.mul(x, INF), n(2))).toBeNull();
  });

  it('treats a constant multiple or power of ∞ as ∞ of that sign', () => {
    expect(key(extAdd(P.scale(INF, qInt(3)), n(1)))).toBe(key(INF));
    expect(key(extAdd(P.scale(INF, qInt(-3)), n(1)))).toBe(key(NEG_INF));
    expect(key(extAdd(P.powInt(INF, 2), n(1)))).toBe(key(INF));
  });

  it('multiplies by the sign of the finite factor, refusing 0 · ∞ and an unknown sign', () => {
    expect(key(extMul(INF, n(-2)))).toBe(key(NEG_INF));
    expect(key(extMul(NEG_INF, NEG_INF))).toBe(key(INF));
    expect(key(extMul(NEG_INF, INF))).toBe(key(NEG_INF));
    expect(form(() => extMul(n(0), INF))).toBe('0 · ∞');
    // An irrational constant's sign is found by evaluating it.
    expect(key(extMul(INF, pi))).toBe(key(INF));
    expect(key(extMul(INF, P.add(n(3), P.neg(pi))))).toBe(key(NEG_INF));
    // x may be either sign: the product is not decided here.
    expect(extMul(INF, x)).toBeNull();
    expect(extMul(n(2), n(3))).toBeNull();
  });

  it('divides: ∞/∞ is undefined, c/∞ is 0, ∞/0 is a division by zero, ∞/c keeps the sign of c', () => {
    expect(form(() => extDiv(INF, NEG_INF))).toBe('∞/∞');
    expect(key(extDiv(n(5), NEG_INF))).toBe(key(n(0)));
    expect(() => extDiv(INF, n(0))).toThrow(P.DivisionByZero);
    expect(key(extDiv(INF, n(-3)))).toBe(key(NEG_INF));
    expect(key(extDiv(NEG_INF, frac(-1n, 2n)))).toBe(key(INF));
    expect(extDiv(INF, x)).toBeNull();
    expect(extDiv(n(1), n(2))).toBeNull();
  });

  it('raises ∞ to a power: ∞⁰ and (−∞)^∞ are undefined, a negative power is 0', () => {
    expect(key(extPow(INF, INF))).toBe(key(INF));
    expect(key(extPow(INF, NEG_INF))).toBe(key(n(0)));
    expect(form(() => extPow(NEG_INF, INF))).toBe('(−∞)^∞');
    expect(form(() => extPow(INF, n(0)))).toBe('∞⁰');
    expect(key(extPow(INF, n(-1)))).toBe(key(n(0)));
    expect(key(extPow(INF, frac(1n, 2n)))).toBe(key(INF));
    expect(key(extPow(INF, pi))).toBe(key(INF));
    expect(key(extPow(INF, P.neg(pi)))).toBe(key(n(0)));
    expect(extPow(INF, x)).toBeNull();
  });

  it('raises −∞ by the parity of an integer power, and refuses a fractional one', () => {
    expect(key(extPow(NEG_INF, n(3)))).toBe(key(NEG_INF));
    expect(key(extPow(NEG_INF, n(2)))).toBe(key(INF));
    expect(key(extPow(NEG_INF, n(-3)))).toBe(key(n(0)));
    expect(form(() => extPow(NEG_INF, frac(1n, 2n)))).toBe('(−∞)^(p/q)');
    // −∞ to an irrational power has no sign to give.
    expect(extPow(NEG_INF, pi)).toBeNull();
  });

  it('raises a constant to ±∞ by where it lies against −1 and 1', () => {
    expect(key(extPow(n(2), INF))).toBe(key(INF));
    expect(key(extPow(frac(1n, 2n), INF))).toBe(key(n(0)));
    expect(key(extPow(frac(-1n, 2n), INF))).toBe(key(n(0)));
    expect(key(extPow(n(0), INF))).toBe(key(n(0)));
    expect(form(() => extPow(n(1), INF))).toBe('1^∞');
    expect(form(() => extPow(n(-1), NEG_INF))).toBe('(−1)^∞');
    expect(form(() => extPow(n(-2), INF))).toBe('c^∞ with c < −1');

    expect(key(extPow(n(2), NEG_INF))).toBe(key(n(0)));
    expect(key(extPow(n(-2), NEG_INF))).toBe(key(n(0)));
    expect(key(extPow(frac(1n, 3n), NEG_INF))).toBe(key(INF));
    expect(form(() => extPow(frac(-1n, 3n), NEG_INF))).toBe('c^(−∞) with −1 < c < 0');
    expect(form(() => extPow(n(0), NEG_INF))).toBe('0^(−∞)');
    // A base that is not a rational constant is left to the algebra.
    expect(extPow(x, INF)).toBeNull();
    expect(extPow(n(2), n(3))).toBeNull();
  });
});
