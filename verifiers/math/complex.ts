/**
 * Complex float64 arithmetic for the randomized equivalence check. Evaluating in the complex plane
 * keeps both sides defined where a real evaluation would not be (`\sqrt{x-5}` at x = 1.3), so two
 * equal expressions stay equal at every point.
 */
export interface C {
  re: number;
  im: number;
}

export const c = (re: number, im = 0): C => ({ re, im });
export const cAdd = (a: C, b: C): C => ({ re: a.re + b.re, im: a.im + b.im });
export const cSub = (a: C, b: C): C => ({ re: a.re - b.re, im: a.im - b.im });
export const cMul = (a: C, b: C): C => ({ re: a.re * b.re - a.im * b.im, im: a.re * b.im + a.im * b.re });
export const cAbs = (a: C): number => Math.hypot(a.re, a.im);
export const cIsFinite = (a: C): boolean => Number.isFinite(a.re) && Number.isFinite(a.im);

export function cDiv(a: C, b: C): C {
  const d = b.re * b.re + b.im * b.im;
  return { re: (a.re * b.re + a.im * b.im) / d, im: (a.im * b.re - a.re * b.im) / d };
}

export function cExp(a: C): C {
  const m = Math.exp(a.re);
  return { re: m * Math.cos(a.im), im: m * Math.sin(a.im) };
}

export function cLog(a: C): C {
  return { re: Math.log(cAbs(a)), im: Math.atan2(a.im, a.re) };
}

export function cPowInt(a: C, k: number): C {
  let result = c(1);
  let base = a;
  let e = Math.abs(k);
  while (e > 0) {
    if (e & 1) result = cMul(result, base);
    base = cMul(base, base);
    e >>= 1;
  }
  return k < 0 ? cDiv(c(1), result) : result;
}

export function cPow(a: C, b: C): C {
  if (b.im === 0 && Number.isInteger(b.re) && Math.abs(b.re) <= 64) return cPowInt(a, b.re);
  if (a.re === 0 && a.im === 0) return c(b.re > 0 ? 0 : NaN);
  // A real root of a negative real (`\sqrt[3]{-8}`) is the real one, as in school algebra.
  if (a.im === 0 && a.re < 0 && b.im === 0) {
    const inv = 1 / b.re;
    if (Number.isInteger(inv) && Math.abs(inv) % 2 === 1) return c(-Math.pow(-a.re, b.re));
  }
  return cExp(cMul(b, cLog(a)));
}

export function cSqrt(a: C): C {
  const r = cAbs(a);
  const re = Math.sqrt((r + a.re) / 2);
  const im = Math.sqrt((r - a.re) / 2);
  return { re, im: a.im < 0 ? -im : im };
}

const I = c(0, 1);

export function cSin(a: C): C {
  return { re: Math.sin(a.re) * Math.cosh(a.im), im: Math.cos(a.re) * Math.sinh(a.im) };
}
export function cCos(a: C): C {
  return { re: Math.cos(a.re) * Math.cosh(a.im), im: -Math.sin(a.re) * Math.sinh(a.im) };
}
export function cTan(a: C): C {
  return cDiv(cSin(a), cCos(a));
}

/** asin(z) = -i log(iz + sqrt(1 - z²)). */
export function cAsin(a: C): C {
  const w = cLog(cAdd(cMul(I, a), cSqrt(cSub(c(1), cMul(a, a)))));
  return { re: w.im, im: -w.re };
}
export function cAcos(a: C): C {
  return cSub(c(Math.PI / 2), cAsin(a));
}
/** atan(z) = (i/2) log((i + z)/(i - z)). */
export function cAtan(a: C): C {
  const w = cLog(cDiv(cAdd(I, a), cSub(I, a)));
  return { re: -w.im / 2, im: w.re / 2 };
}
export function cSinh(a: C): C {
  return cDiv(cSub(cExp(a), cExp({ re: -a.re, im: -a.im })), c(2));
}
export function cCosh(a: C): C {
  return cDiv(cAdd(cExp(a), cExp({ re: -a.re, im: -a.im })), c(2));
}
