import { Budget, DEFAULT_LIMITS } from './budget';
import { canonicalize } from './canonical';
import { evalPoly, Point, pointValue, POINTS } from './numeric';
import { parseAnswer } from './parse';
import type { Poly } from './poly';

function poly(text: string): Poly {
  const r = parseAnswer(text, { plain: false }, DEFAULT_LIMITS);
  if (!r.ok) throw new Error(`${text}: ${r.error}`);
  const v = canonicalize(r.node, new Budget(), { strict: true });
  if (v.t !== 'scalar') throw new Error(`${text} is not a scalar`);
  return v.p;
}
const at = (text: string, index: number) => evalPoly(poly(text), new Point(index));
const points = Array.from({ length: POINTS }, (_, i) => i);

describe('the evaluation points', () => {
  it('sample each variable where identities hide differences: positive, negative, mixed and large', () => {
    for (const name of ['x', 'y', 'theta']) {
      const values = points.map((i) => pointValue(name, i));
      for (const v of values.slice(0, 3)) expect(v >= 0.3 && v < 2.3).toBe(true);
      expect(values[3]! > -2.3 && values[3]! <= -0.3).toBe(true);
      for (const v of values.slice(4, 6)) expect(Math.abs(v) >= 0.3 && Math.abs(v) < 2.3).toBe(true);
      for (const v of values.slice(6)) expect(v >= 2.5 && v < 12).toBe(true);
    }
  });

  it('are fixed per variable and differ between variables', () => {
    expect(points.map((i) => pointValue('x', i))).toEqual(points.map((i) => pointValue('x', i)));
    expect(points.map((i) => pointValue('x', i))).not.toEqual(points.map((i) => pointValue('y', i)));
  });
});

describe('evalPoly', () => {
  it('evaluates a polynomial at the point\'s values of its variables', () => {
    for (const i of points) {
      const x = pointValue('x', i);
      const y = pointValue('y', i);
      const got = at('x^2 + 3xy - \\frac{1}{2}', i);
      expect(got.real).toBe(true);
      expect(got.v.re).toBeCloseTo(x * x + 3 * x * y - 0.5, 9);
    }
  });

  it('takes π, e and square roots of rationals as their values', () => {
    expect(at('2\\pi + e', 0).v.re).toBeCloseTo(2 * Math.PI + Math.E, 12);
    expect(at('3\\sqrt{13}', 0).v.re).toBeCloseTo(3 * Math.sqrt(13), 12);
  });

  it('leaves the real line where the expression does: √x at a negative x, anything with i', () => {
    expect(at('\\sqrt{x}', 0).real).toBe(true);
    expect(at('\\sqrt{x}', 3).real).toBe(false);
    expect(at('1 + i', 0)).toEqual({ v: { re: 1, im: 1 }, real: false });
  });

  it('gives both sides of an identity one value, and unknown functions a fixed value per name', () => {
    for (const i of points) {
      expect(at('\\sin(x)^2 + \\cos(x)^2', i).v.re).toBeCloseTo(1, 9);
      expect(at('f(x)', i).v).toEqual(at('f(x)', i).v);
      expect(at('f(x)', i).v).not.toEqual(at('g(x)', i).v);
    }
  });
});
