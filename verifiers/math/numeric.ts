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
  cLog,
  cMul,
  cPow,
  cPowInt,
  cSin,
  cSinh,
  cSqrt,
  cTan,
  type C,
} from './complex';
import type { Atom, Poly } from './poly';
import { qToNumber } from './rational';

/**
 * Deterministic pseudo-random numbers: splitmix32 over a fixed seed, the point index and a hash of
 * the atom's key. The same variable gets the same value on both sides, on every run.
 */
const SEED = 0x5eed1234;

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function splitmix32(x: number): number {
  x = (x + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return ((x ^ (x >>> 16)) >>> 0) / 4294967296;
}

/**
 * The points of the randomized check. Positive points alone would accept `\sqrt{x^2}` for `x` and
 * `|x|` for `x`, so the points mix signs and sizes; every value is (almost surely) a non-integer,
 * at least 0.3 from 0, where identities hide differences:
 * - points 0–2: every variable positive, in [0.3, 2.3) (the domain of school identities such as
 *   √x·√y = √(xy) or ln(x²) = 2 ln x is always sampled);
 * - point 3: every variable negative, in (-2.3, -0.3];
 * - points 4–5: each variable's sign drawn from its own hash, so variables may differ in sign;
 * - points 6–7: every variable positive and larger, in [2.5, 12) (domains such as x > 5).
 */
export const POINTS = 8;

export function pointValue(key: string, point: number): number {
  const h = fnv1a(key) ^ Math.imul(point + 1, 0x27d4eb2d) ^ SEED;
  const u = splitmix32(h);
  if (point >= 6) return 2.5 + 9.5 * u;
  const magnitude = 0.3 + 2 * u;
  if (point === 3) return -magnitude;
  if (point >= 4) return splitmix32(h ^ 0x68e31da4) < 0.5 ? -magnitude : magnitude;
  return magnitude;
}

/**
 * A value at a point, and whether its evaluation stayed on the real line: real inputs through
 * real-valued steps only. `\sqrt{x}` at x < 0, `\ln x` at x < 0, and anything with `i` or an
 * opaque function leave it; those points are outside the expression's real domain.
 */
export interface Evaluated {
  v: C;
  real: boolean;
}

const REAL_EPS = 1e-9;

function isReal(v: C): boolean {
  return Math.abs(v.im) <= REAL_EPS * Math.max(1, Math.abs(v.re));
}

export class Point {
  private readonly cache = new Map<string, Evaluated>();
  constructor(readonly index: number) {}

  atom(a: Atom): Evaluated {
    const cached = this.cache.get(a.key);
    if (cached) return cached;
    const value = evalAtom(a, this);
    this.cache.set(a.key, value);
    return value;
  }
}

function evalAtom(a: Atom, point: Point): Evaluated {
  switch (a.kind) {
    case 'sym':
      return { v: c(pointValue(a.key, point.index)), real: true };
    case 'pi':
      return { v: c(Math.PI), real: true };
    case 'e':
      return { v: c(Math.E), real: true };
    case 'i':
      return { v: c(0, 1), real: false };
    case 'inf':
      return { v: c(Infinity), real: true };
    case 'opaque':
      // Unknown functions and operators (`f(x)`, `\sum_{k=0}^{n} …`) take an arbitrary but fixed
      // complex value per canonical key: equal keys agree, different keys almost surely do not.
      return { v: c(pointValue(a.key, point.index), pointValue(`im:${a.key}`, point.index) - 1.3), real: false };
    default: {
      const args = a.args.map((p) => evalPoly(p, point));
      const v = a.kind === 'recip' ? cDiv(c(1), (args[0] as Evaluated).v) : a.kind === 'pow' ? cPow((args[0] as Evaluated).v, (args[1] as Evaluated).v) : applyFunction(a.name, args.map((x) => x.v));
      return { v, real: args.every((x) => x.real) && isReal(v) };
    }
  }
}

function applyFunction(name: string, args: C[]): C {
  const x = args[0] ?? c(NaN);
  switch (name) {
    case 'sin':
      return cSin(x);
    case 'cos':
      return cCos(x);
    case 'tan':
      return cTan(x);
    case 'cot':
      return cDiv(c(1), cTan(x));
    case 'sec':
      return cDiv(c(1), cCos(x));
    case 'csc':
      return cDiv(c(1), cSin(x));
    case 'arcsin':
      return cAsin(x);
    case 'arccos':
      return cAcos(x);
    case 'arctan':
      return cAtan(x);
    case 'sinh':
      return cSinh(x);
    case 'cosh':
      return cCosh(x);
    case 'tanh':
      return cDiv(cSinh(x), cCosh(x));
    case 'ln':
      return cLog(x);
    case 'log': {
      // log_b(x) with its base as the second argument; a bare \log is the natural logarithm.
      const base = args[1];
      return base ? cDiv(cLog(x), cLog(base)) : cLog(x);
    }
    case 'exp':
      return cExp(x);
    case 'abs':
      return c(cAbs(x));
    case 'floor':
      return c(Math.floor(x.re));
    case 'ceil':
      return c(Math.ceil(x.re));
    case 'factorial':
      return c(gamma(x.re + 1));
    default:
      return c(NaN);
  }
}

/** Lanczos approximation, enough for comparing factorials of non-integers at random points. */
function gamma(z: number): number {
  if (z < 0.5) return Math.PI / (Math.sin(Math.PI * z) * gamma(1 - z));
  const g = 7;
  const p = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  z -= 1;
  let x = p[0] as number;
  for (let i = 1; i < g + 2; i++) x += (p[i] as number) / (z + i);
  const t = z + g + 0.5;
  return Math.sqrt(2 * Math.PI) * Math.pow(t, z + 0.5) * Math.exp(-t) * x;
}

export function evalPoly(p: Poly, point: Point): Evaluated {
  let sum = c(0);
  let real = true;
  for (const t of p.terms) {
    let v = c(qToNumber(t.coef));
    if (t.rad !== 1n) v = cMul(v, cSqrt(c(Number(t.rad))));
    for (const [a, e] of t.factors) {
      const x = point.atom(a);
      real &&= x.real;
      v = cMul(v, cPowInt(x.v, e));
    }
    sum = cAdd(sum, v);
  }
  return { v: sum, real };
}
