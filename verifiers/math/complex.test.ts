import {
  c,
  cAbs,
  cAcos,
  cAdd,
  cAsin,
  cAtan,
  cCos,
  cCosh,
  cDiv,
  cExp,
  cIsFinite,
  cLog,
  cMul,
  cPow,
  cPowInt,
  cSin,
  cSinh,
  cSqrt,
  cSub,
  cTan,
  type C,
} from './complex';

/** Within 1e-12 (relative for large values) in both parts. */
function expectNear(a: C, b: C): void {
  const tol = 1e-12 * Math.max(1, cAbs(b));
  expect(Math.abs(a.re - b.re)).toBeLessThanOrEqual(tol);
  expect(Math.abs(a.im - b.im)).toBeLessThanOrEqual(tol);
}

describe('complex arithmetic for the randomized equivalence check', () => {
  it('does field arithmetic', () => {
    expect(cMul(c(1, 2), c(3, -1))).toEqual(c(5, 5));
    expect(cSub(c(1, 2), c(3, -1))).toEqual(c(-2, 3));
    expectNear(cDiv(c(5, 5), c(3, -1)), c(1, 2));
    // Division by zero gives a non-finite value, which the comparison treats as undefined.
    expect(cIsFinite(cDiv(c(1), c(0)))).toBe(false);
    expect(cIsFinite(c(1, 2))).toBe(true);
  });

  it('keeps a square root of a negative number defined (√(x−5) at x = 1.3)', () => {
    const r = cSqrt(c(1.3 - 5));
    expectNear(r, c(0, Math.sqrt(3.7)));
    expectNear(cMul(r, r), c(1.3 - 5));
    // The principal root: the sign of the imaginary part follows the argument's.
    expectNear(cSqrt(c(3, 4)), c(2, 1));
    expectNear(cSqrt(c(3, -4)), c(2, -1));
  });

  it('takes odd real roots of negative reals as the real root, other powers as the principal value', () => {
    expectNear(cPow(c(-8), c(1 / 3)), c(-2));
    expectNear(cPow(c(-32), c(1 / 5)), c(-2));
    expectNear(cPow(c(-4), c(1 / 2)), c(0, 2));
    expectNear(cPow(c(2), c(0.5)), c(Math.SQRT2));
  });

  it('raises to integer powers exactly by squaring, negative ones as a reciprocal', () => {
    expect(cPowInt(c(2), 10)).toEqual(c(1024));
    expect(cPowInt(c(0, 1), 2)).toEqual(c(-1, 0));
    expect(cPowInt(c(2), -2)).toEqual(c(0.25));
    expect(cPowInt(c(7, 3), 0)).toEqual(c(1));
    expect(cPow(c(3), c(2))).toEqual(c(9));
  });

  it('gives 0 to a positive power of 0 and no value to a negative one', () => {
    expect(cPow(c(0), c(0.5))).toEqual(c(0));
    expect(Number.isNaN(cPow(c(0), c(-0.5)).re)).toBe(true);
  });

  it('has exp and log inverse on the principal branch (e^{iπ} = −1)', () => {
    expectNear(cExp(c(0, Math.PI)), c(-1));
    expectNear(cLog(c(-1)), c(0, Math.PI));
    const z = c(0.3, -1.2);
    expectNear(cExp(cLog(z)), z);
  });

  it('has trigonometric and hyperbolic functions that satisfy their identities off the real line', () => {
    const z = c(0.7, 0.4);
    expectNear(cAdd(cMul(cSin(z), cSin(z)), cMul(cCos(z), cCos(z))), c(1));
    expectNear(cSub(cMul(cCosh(z), cCosh(z)), cMul(cSinh(z), cSinh(z))), c(1));
    expectNear(cTan(z), cDiv(cSin(z), cCos(z)));
    expectNear(cSin(c(Math.PI / 6)), c(0.5));
  });

  it('inverts sin, cos and tan, also outside the real domain (asin 2)', () => {
    const z = c(0.4, 0.3);
    expectNear(cSin(cAsin(z)), z);
    expectNear(cCos(cAcos(z)), z);
    expectNear(cTan(cAtan(z)), z);
    expectNear(cSin(cAsin(c(2))), c(2));
    expectNear(cAtan(c(1)), c(Math.PI / 4));
    expectNear(cAsin(c(1)), c(Math.PI / 2));
    expectNear(cAcos(c(-1)), c(Math.PI));
  });
});
