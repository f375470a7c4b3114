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

/** A value in [0.3, 2.3): positive, away from 0 and 1 where identities hide differences. */
export function pointValue(key: string, point: number): number {
  return 0.3 + 2 * splitmix32(fnv1a(key) ^ Math.imul(point + 1, 0x27d4eb2d) ^ SEED);
}

export class Point {
  private readonly cache = new Map<string, C>();
  constructor(readonly index: number) {}

  atom(a: Atom): C {
    const cached = this.cache.get(a.key);
    if (cached) return cached;
    const value = evalAtom(a, this);
    this.cache.set(a.key, value);
    return value;
  }
}

function evalAtom(a: Atom, point: Point): C {
  switch (a.kind) {
    case 'sym':
      return c(pointValue(a.key, point.index));
    case 'pi':
      return c(Math.PI);
    case 'e':
      return c(Math.E);
    case 'i':
      return c(0, 1);
    case 'inf':
      return c(Infinity);
    case 'recip':
      return cDiv(c(1), evalPoly(a.args[0] as Poly, point));
    case 'pow':
      return cPow(evalPoly(a.args[0] as Poly, point), evalPoly(a.args[1] as Poly, point));
    case 'fn':
      return applyFunction(a.name, a.args.map((p) => evalPoly(p, point)));
    case 'opaque':
      // Unknown functions and operators (`f(x)`, `\sum_{k=0}^{n} …`) take an arbitrary but fixed
      // value per canonical key: equal keys agree, different keys almost surely do not.
      return c(pointValue(a.key, point.index), pointValue(`im:${a.key}`, point.index) - 1.3);
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

export function evalPoly(p: Poly, point: Point): C {
  let sum = c(0);
  for (const t of p.terms) {
    let v = c(qToNumber(t.coef));
    if (t.rad !== 1n) v = cMul(v, cSqrt(c(Number(t.rad))));
    for (const [a, e] of t.factors) v = cMul(v, cPowInt(point.atom(a), e));
    sum = cAdd(sum, v);
  }
  return sum;
}
