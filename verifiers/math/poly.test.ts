import { Budget, DEFAULT_LIMITS, TooComplex } from './budget';
import * as P from './poly';
import { q, qInt } from './rational';

const x = P.fromAtom(P.atom('sym', 'x'));
const y = P.fromAtom(P.atom('sym', 'y'));
const n = (k: number) => P.constant(qInt(k));
const key = P.polyKey;

describe('the canonical polynomial', () => {
  it('gives one form to every spelling of one polynomial', () => {
    const expanded = P.add(P.add(P.mul(x, x), P.scale(x, qInt(2))), n(1));
    expect(key(P.powInt(P.add(x, n(1)), 2))).toBe(key(expanded));
    expect(key(P.mul(x, y))).toBe(key(P.mul(y, x)));
    expect(key(P.add(x, P.neg(x)))).toBe(key(n(0)));
    expect(key(P.add(x, y))).not.toBe(key(P.add(x, n(1))));
  });

  it('reads a constant back, and only a constant', () => {
    expect(P.constantValue(P.add(n(2), P.constant(q(1n, 2n))))).toEqual(q(5n, 2n));
    expect(P.constantValue(n(0))).toEqual(q(0n));
    expect(P.constantValue(x)).toBeNull();
  });

  it('divides by a monomial exactly and by a sum through a monic reciprocal, and never by zero', () => {
    expect(key(P.div(P.mul(x, y), x))).toBe(key(y));
    // 1/(2x+2) = (1/2)·1/(x+1)
    expect(key(P.reciprocal(P.add(P.scale(x, qInt(2)), n(2))))).toBe(key(P.scale(P.reciprocal(P.add(x, n(1))), q(1n, 2n))));
    expect(() => P.div(x, n(0))).toThrow(P.DivisionByZero);
  });

  it('takes i² = -1 and 1/i = -i', () => {
    const i = P.fromAtom(P.atom('i', 'i'));
    expect(key(P.mul(i, i))).toBe(key(n(-1)));
    expect(key(P.reciprocal(i))).toBe(key(P.neg(i)));
  });

  it('reduces square roots of rationals to k·√m with m square-free', () => {
    expect(P.splitSquare(117n)).toEqual({ out: 3n, inside: 13n });
    expect(P.splitSquare(16n)).toEqual({ out: 4n, inside: 1n });
    // √117 = 3√13, and √(1/2) = √2/2
    expect(key(P.rationalPower(qInt(117), q(1n, 2n), false)!)).toBe(key(P.scale(P.rationalPower(qInt(13), q(1n, 2n), false)!, qInt(3))));
    expect(key(P.rationalPower(q(1n, 2n), q(1n, 2n), false)!)).toBe(key(P.scale(P.rationalPower(qInt(2), q(1n, 2n), false)!, q(1n, 2n))));
    expect(P.constantValue(P.rationalPower(qInt(8), q(2n, 3n), false)!)).toEqual(qInt(4));
    // (-4)^(1/2) = 2i; a cube root with no exact form has no polynomial form here
    expect(key(P.rationalPower(qInt(-4), q(1n, 2n), false)!)).toBe(key(P.scale(P.fromAtom(P.atom('i', 'i')), qInt(2))));
    expect(P.rationalPower(qInt(2), q(1n, 3n), false)).toBeNull();
  });

  it('keeps a decimal\'s inexactness through arithmetic, so it is compared with tolerance', () => {
    expect(P.add(x, P.constant(q(1n, 10n), true)).inexact).toBe(true);
    expect(P.add(x, n(1)).inexact).toBe(false);
  });

  it('refuses, within its budget, to expand a sum to a high power', () => {
    expect(() => P.powInt(P.add(x, y), 1000, new Budget(DEFAULT_LIMITS))).toThrow(TooComplex);
  });

  it('knows a polynomial (variables, π, e, i) from a form with functions or reciprocals of sums', () => {
    expect(P.isPolynomial(P.add(P.mul(x, P.fromAtom(P.atom('pi', 'π'))), n(3)))).toBe(true);
    expect(P.isPolynomial(P.reciprocal(P.add(x, n(1))))).toBe(false);
    expect([...P.atomsOf(P.fromAtom(P.atom('fn', 'sin', [x]))).keys()].sort()).toEqual(['sin(x)', 'x']);
  });
});
