import type { Budget } from './budget';
import type { Scalar, Value } from './canonical';
import { cAbs, cDiv, cIsFinite, cSub, type C } from './complex';
import { evalPoly, Point } from './numeric';
import type { RelOp } from './parse/ast';
import * as P from './poly';
import { q, qAbs, qCmp, qSub, qToNumber } from './rational';

export interface CompareConfig {
  /**
   * Decimal places to which an answer written as a decimal must agree: |a − b| ≤ ½·10^-precision.
   * Exact answers (integers, fractions, radicals) are compared exactly, whatever the precision.
   */
  precision: number;
}

/** Points of the randomized check; every finite point must agree and at least MIN_POINTS must exist. */
const POINTS = 6;
const MIN_POINTS = 3;
/** Relative tolerance for two exact expressions evaluated in float64 (identities like tan²+1 = sec²). */
const EXACT_RTOL = 1e-9;

/** Which rule made two values equal, or null when they differ. */
export type Rule = string | null;

export class Comparer {
  constructor(
    private readonly config: CompareConfig,
    private readonly budget: Budget,
  ) {}

  compare(gold: Value, pred: Value): Rule {
    this.budget.spend(1);
    if (gold.t === 'text' || pred.t === 'text') return textEqual(gold, pred) ? 'text' : null;
    if (gold.t === 'rel' && pred.t === 'rel') return this.relations(gold, pred);
    if (gold.t === 'rel') return this.relationAgainst(gold, pred);
    if (pred.t === 'rel') return this.relationAgainst(pred, gold);
    if (gold.t === 'list' || pred.t === 'list') return this.unordered(itemsOf(gold), itemsOf(pred), 'answers');
    if (gold.t === 'scalar' && pred.t === 'scalar') return this.scalars(gold, pred);
    if (gold.t === 'set' && pred.t === 'set') return this.unordered(gold.items, pred.items, 'set');
    if (gold.t === 'tuple' && pred.t === 'tuple') return this.ordered(gold.items, pred.items, 'tuple');
    if (gold.t === 'ratio' && pred.t === 'ratio') return this.ordered(gold.items, pred.items, 'ratio');
    if (gold.t === 'matrix' || pred.t === 'matrix') return this.matrices(gold, pred);
    if (isSetLike(gold) && isSetLike(pred)) return this.setLike(gold, pred);
    return null;
  }

  scalars(a: Scalar, b: Scalar): Rule {
    const direct = this.polys(a.p, b.p);
    if (direct) return direct;
    if (a.alt && !b.marker && this.polys(a.alt, b.p)) return a.marker === 'percent' ? 'percent_as_number' : 'degrees_as_radians';
    if (b.alt && !a.marker && this.polys(a.p, b.alt)) return b.marker === 'percent' ? 'percent_as_number' : 'degrees_as_radians';
    return null;
  }

  polys(a: P.Poly, b: P.Poly): Rule {
    const inexact = a.inexact || b.inexact;
    if (P.polyKey(a) === P.polyKey(b)) return P.constantValue(a) !== null ? 'exact' : 'canonical_form';
    const ca = P.constantValue(a);
    const cb = P.constantValue(b);
    if (ca !== null && cb !== null) {
      if (!inexact) return null;
      return qCmp(qAbs(qSub(ca, cb)), q(1n, 2n * 10n ** BigInt(this.config.precision))) <= 0 ? 'decimal_tolerance' : null;
    }
    // Polynomials over variables, radicals, π, e and i are equal only when their forms are.
    if (!inexact && P.isPolynomial(a) && P.isPolynomial(b)) return null;
    return this.numerically(a, b, inexact) ? (inexact ? 'decimal_tolerance' : 'numeric_identity') : null;
  }

  private numerically(a: P.Poly, b: P.Poly, inexact: boolean): boolean {
    let valid = 0;
    const atol = inexact ? 0.5 * 10 ** -this.config.precision : 0;
    for (let i = 0; i < POINTS; i++) {
      this.budget.spend(4 * (a.terms.length + b.terms.length));
      const point = new Point(i);
      const va = evalPoly(a, point);
      const vb = evalPoly(b, point);
      if (!cIsFinite(va) || !cIsFinite(vb)) continue;
      valid++;
      const scale = Math.max(1, cAbs(va), cAbs(vb));
      if (cAbs(cSub(va, vb)) > atol + EXACT_RTOL * scale) return false;
    }
    return valid >= MIN_POINTS;
  }

  private ordered(a: Value[], b: Value[], rule: string): Rule {
    if (a.length !== b.length) return null;
    for (let i = 0; i < a.length; i++) if (!this.compare(a[i] as Value, b[i] as Value)) return null;
    return rule;
  }

  /** Same elements regardless of order and repetition: each side's every element is on the other. */
  private unordered(a: Value[], b: Value[], rule: string): Rule {
    this.budget.spend(a.length * b.length);
    const covered = (xs: Value[], ys: Value[], goldFirst: boolean): boolean =>
      xs.every((x) => ys.some((y) => (goldFirst ? this.compare(x, y) : this.compare(y, x)) !== null));
    return covered(a, b, true) && covered(b, a, false) ? rule : null;
  }

  private matrices(a: Value, b: Value): Rule {
    const ra = rowsOf(a);
    const rb = rowsOf(b);
    if (!ra || !rb || ra.length !== rb.length) return null;
    for (let i = 0; i < ra.length; i++) if (!this.ordered(ra[i] as Value[], rb[i] as Value[], 'matrix')) return null;
    return 'matrix';
  }

  // ---- sets and intervals -------------------------------------------------------------------

  private setLike(a: Value, b: Value): Rule {
    const ua = this.normalizeUnion(a);
    const ub = this.normalizeUnion(b);
    if (ua && ub) {
      if (ua.length !== ub.length) return null;
      for (let i = 0; i < ua.length; i++) if (!this.sameInterval(ua[i] as Span, ub[i] as Span)) return null;
      return 'interval';
    }
    // Endpoints that do not order (symbolic bounds): compare the parts as written.
    if (a.t === 'interval' && b.t === 'interval') return this.sameInterval(a, b) ? 'interval' : null;
    if (a.t === 'union' && b.t === 'union') return this.ordered(a.parts, b.parts, 'interval');
    return null;
  }

  private sameInterval(a: Span, b: Span): boolean {
    if (!this.scalars(a.lo, b.lo) || !this.scalars(a.hi, b.hi)) return false;
    const loInf = isInfinite(a.lo);
    const hiInf = isInfinite(a.hi);
    return (loInf || a.loClosed === b.loClosed) && (hiInf || a.hiClosed === b.hiClosed);
  }

  /** A union as sorted, merged spans (points are closed spans), or null when endpoints do not order. */
  private normalizeUnion(v: Value): Span[] | null {
    const spans: Span[] = [];
    const collect = (x: Value): boolean => {
      if (x.t === 'interval') spans.push(x);
      else if (x.t === 'tuple' && x.bracket === '(' && x.items.length === 2 && x.items.every((i) => i.t === 'scalar')) {
        spans.push({ lo: x.items[0] as Scalar, hi: x.items[1] as Scalar, loClosed: false, hiClosed: false });
      } else if (x.t === 'set') {
        for (const item of x.items) {
          if (item.t !== 'scalar') return false;
          spans.push({ lo: item, hi: item, loClosed: true, hiClosed: true });
        }
      } else if (x.t === 'union') return x.parts.every(collect);
      else return false;
      return true;
    };
    if (!collect(v)) return null;
    const keyed: Array<Span & { l: number; h: number }> = [];
    for (const s of spans) {
      const l = realValue(s.lo.p);
      const h = realValue(s.hi.p);
      if (l === null || h === null) return null;
      keyed.push({ ...s, l, h });
    }
    keyed.sort((x, y) => x.l - y.l || x.h - y.h);
    const merged: Array<Span & { l: number; h: number }> = [];
    for (const s of keyed) {
      const last = merged[merged.length - 1];
      if (last && (s.l < last.h || (this.scalars(s.lo, last.hi) && (s.loClosed || last.hiClosed)))) {
        if (s.h > last.h || (s.h === last.h && s.hiClosed)) {
          last.hi = s.hi;
          last.h = s.h;
          last.hiClosed = s.hiClosed || (s.h === last.h && last.hiClosed);
        }
        continue;
      }
      merged.push({ ...s });
    }
    return merged;
  }

  // ---- relations ------------------------------------------------------------------------------

  /** An equation against a plain answer: `x = 3` answers `3` when its other side only names it. */
  private relationAgainst(rel: Extract<Value, { t: 'rel' }>, other: Value): Rule {
    if (rel.ops.length === 1 && rel.ops[0] === '=') {
      const side = rel.nameLike[0] ? rel.items[1] : rel.nameLike[1] ? rel.items[0] : undefined;
      if (side) {
        const rule = this.compare(side, other);
        return rule ? `equation_value:${rule}` : null;
      }
      return null;
    }
    const set = relationToSet(rel);
    if (set && isSetLike(other)) return this.setLike(set, other) ? 'relation_as_set' : null;
    return null;
  }

  private relations(a: Extract<Value, { t: 'rel' }>, b: Extract<Value, { t: 'rel' }>): Rule {
    if (a.ops.length === 1 && b.ops.length === 1 && a.ops[0] === '=' && b.ops[0] === '=') {
      const [la, lb] = [a.items[0] as Value, b.items[0] as Value];
      if (a.nameLike[0] && b.nameLike[0] && (sameFunction(la, lb) || this.compare(la, lb))) {
        if (this.compare(a.items[1] as Value, b.items[1] as Value)) return 'equation';
      }
      return this.proportional(a, b, 'any') ? 'equation' : null;
    }
    const sa = relationToSet(a);
    const sb = relationToSet(b);
    if (sa && sb) return this.setLike(sa, sb) ? 'inequality' : null;
    if (a.ops.length === 1 && b.ops.length === 1) {
      const na = normalizeInequality(a.ops[0] as RelOp);
      const nb = normalizeInequality(b.ops[0] as RelOp);
      if (na && nb && na.strict === nb.strict) {
        return this.proportional(a, b, na.flip === nb.flip ? 'positive' : 'negative') ? 'inequality' : null;
      }
      if (a.ops[0] === '!=' && b.ops[0] === '!=') return this.proportional(a, b, 'any') ? 'inequality' : null;
      return null;
    }
    if (a.ops.length === b.ops.length) {
      if (a.ops.every((o, i) => o === b.ops[i]) && this.ordered(a.items, b.items, 'relation')) return 'relation';
      const flipped = [...b.ops].reverse().map(flipOp);
      if (a.ops.every((o, i) => o === flipped[i]) && this.ordered(a.items, [...b.items].reverse(), 'relation')) return 'relation';
    }
    return null;
  }

  /** (L₁ − R₁) = k·(L₂ − R₂) for a constant k of the required sign. */
  private proportional(a: Extract<Value, { t: 'rel' }>, b: Extract<Value, { t: 'rel' }>, sign: 'any' | 'positive' | 'negative'): boolean {
    const fa = difference(a, this.budget);
    const fb = difference(b, this.budget);
    if (!fa || !fb || fa.terms.length === 0 || fb.terms.length === 0) return false;
    const lead = (p: P.Poly) => (p.terms[0] as P.Term).coef;
    if (!fa.inexact && !fb.inexact && P.isPolynomial(fa) && P.isPolynomial(fb)) {
      const ka = lead(fa);
      const kb = lead(fb);
      const na = P.scale(fa, q(ka.d, ka.n), this.budget);
      const nb = P.scale(fb, q(kb.d, kb.n), this.budget);
      if (P.polyKey(na) !== P.polyKey(nb)) return false;
      const ratio = qToNumber(ka) / qToNumber(kb);
      return sign === 'any' || (sign === 'positive' ? ratio > 0 : ratio < 0);
    }
    let k: C | null = null;
    let valid = 0;
    for (let i = 0; i < POINTS; i++) {
      const point = new Point(i);
      const r = cDiv(evalPoly(fa, point), evalPoly(fb, point));
      if (!cIsFinite(r)) continue;
      valid++;
      if (k === null) k = r;
      else if (cAbs(cSub(r, k)) > 1e-6 * Math.max(1, cAbs(k))) return false;
    }
    if (k === null || valid < MIN_POINTS || cAbs(k) < 1e-12 || Math.abs(k.im) > 1e-9) return false;
    return sign === 'any' || (sign === 'positive' ? k.re > 0 : k.re < 0);
  }
}

/** `W(n)` and `W(x)` name the same function: its dummy argument does not identify it. */
function sameFunction(a: Value, b: Value): boolean {
  const fn = (v: Value): string | null => {
    if (v.t !== 'scalar' || v.p.terms.length !== 1) return null;
    const t = v.p.terms[0] as P.Term;
    const f = t.factors[0];
    if (t.factors.length !== 1 || !f || f[1] !== 1 || f[0].kind !== 'opaque' || t.coef.n !== 1n || t.coef.d !== 1n) return null;
    const args = f[0].args;
    return args.every((arg) => arg.terms.length === 1 && arg.terms[0]?.factors[0]?.[0].kind === 'sym') ? `${f[0].name}/${args.length}` : null;
  };
  const fa = fn(a);
  return fa !== null && fa === fn(b);
}

type Span = { lo: Scalar; hi: Scalar; loClosed: boolean; hiClosed: boolean };

function itemsOf(v: Value): Value[] {
  // Several answers against a tuple or set: the tuple's order is not asked for (`p=5,q=2` vs `(5,2)`).
  if (v.t === 'list' || v.t === 'set' || v.t === 'tuple') return v.items;
  return [v];
}

function rowsOf(v: Value): Value[][] | null {
  if (v.t === 'matrix') {
    // A column vector compares with a tuple written in a row.
    if (v.rows.every((r) => r.length === 1) && v.rows.length > 1) return [v.rows.map((r) => r[0] as Value)];
    return v.rows;
  }
  if (v.t === 'tuple') return [v.items];
  return null;
}

function isSetLike(v: Value): boolean {
  return v.t === 'interval' || v.t === 'union' || v.t === 'set' || (v.t === 'tuple' && v.bracket === '(' && v.items.length === 2);
}

function isInfinite(s: Scalar): boolean {
  return s.p.terms.some((t) => t.factors.some(([a]) => a.kind === 'inf'));
}

/** The real value of a constant (∞ included), or null when it has variables or is not real. */
function realValue(p: P.Poly): number | null {
  const c = P.constantValue(p);
  if (c !== null) return qToNumber(c);
  const [only] = p.terms;
  if (p.terms.length === 1 && only && only.key === '∞') return only.coef.n > 0n ? Infinity : -Infinity;
  for (const a of P.atomsOf(p).values()) if (a.kind === 'sym' || a.kind === 'opaque' || a.kind === 'i') return null;
  const v = evalPoly(p, new Point(0));
  if (Math.abs(v.im) > 1e-12) return null;
  if (Number.isNaN(v.re)) return null;
  return v.re;
}

function normalizeInequality(op: RelOp): { strict: boolean; flip: boolean } | null {
  switch (op) {
    case '<':
      return { strict: true, flip: false };
    case '<=':
      return { strict: false, flip: false };
    case '>':
      return { strict: true, flip: true };
    case '>=':
      return { strict: false, flip: true };
    default:
      return null;
  }
}

function flipOp(op: RelOp): RelOp {
  const flips: Partial<Record<RelOp, RelOp>> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=' };
  return flips[op] ?? op;
}

function difference(rel: Extract<Value, { t: 'rel' }>, budget: Budget): P.Poly | null {
  const [l, r] = rel.items;
  if (l?.t !== 'scalar' || r?.t !== 'scalar') return null;
  return P.add(l.p, P.neg(r.p), budget);
}

function isConstantScalar(v: Value | undefined): v is Scalar {
  return v?.t === 'scalar' && realValue(v.p) !== null;
}

const INF: Scalar = { t: 'scalar', p: P.fromAtom(P.atom('inf', '∞')) };
const NEG_INF: Scalar = { t: 'scalar', p: P.neg(P.fromAtom(P.atom('inf', '∞'))) };

/**
 * A relation in one unknown with constant bounds as the set it describes: `-2 \le x \le 7` is
 * [-2, 7], `x > 5` is (5, ∞), `x \ne 3` is ℝ∖{3}, and `1 \le |z| \le 3/2` is [-3/2,-1] ∪ [1,3/2].
 */
export function relationToSet(rel: Extract<Value, { t: 'rel' }>): Value | null {
  const { ops, items, nameLike } = rel;
  const bounds: { lo: Scalar; hi: Scalar; loClosed: boolean; hiClosed: boolean } = { lo: NEG_INF, hi: INF, loClosed: false, hiClosed: false };
  let subject = -1;
  if (items.length === 2) {
    subject = nameLike[0] && isConstantScalar(items[1]) ? 0 : nameLike[1] && isConstantScalar(items[0]) ? 1 : -1;
    if (subject < 0) return null;
    const op = subject === 0 ? (ops[0] as RelOp) : flipOp(ops[0] as RelOp);
    const c = items[1 - subject] as Scalar;
    if (op === '<' || op === '<=') Object.assign(bounds, { hi: c, hiClosed: op === '<=' });
    else if (op === '>' || op === '>=') Object.assign(bounds, { lo: c, loClosed: op === '>=' });
    else if (op === '!=') {
      return { t: 'union', parts: [{ t: 'interval', lo: NEG_INF, hi: c, loClosed: false, hiClosed: false }, { t: 'interval', lo: c, hi: INF, loClosed: false, hiClosed: false }] };
    } else return null;
  } else if (items.length === 3 && nameLike[1] && isConstantScalar(items[0]) && isConstantScalar(items[2])) {
    subject = 1;
    const [o1, o2] = ops as [RelOp, RelOp];
    const ascending = (o1 === '<' || o1 === '<=') && (o2 === '<' || o2 === '<=');
    const descending = (o1 === '>' || o1 === '>=') && (o2 === '>' || o2 === '>=');
    if (ascending) Object.assign(bounds, { lo: items[0], hi: items[2], loClosed: o1 === '<=', hiClosed: o2 === '<=' });
    else if (descending) Object.assign(bounds, { lo: items[2], hi: items[0], loClosed: o2 === '>=', hiClosed: o1 === '>=' });
    else return null;
  } else return null;
  const interval: Value = { t: 'interval', ...bounds };
  const subj = items[subject] as Value;
  if (subj.t === 'scalar' && isAbsOfName(subj)) {
    // |x| in [a, b] with a ≥ 0: x in [-b, -a] ∪ [a, b].
    const a = realValue(bounds.lo.p);
    if (a === null || a < 0 || !Number.isFinite(a)) return null;
    const mirror: Value = { t: 'interval', lo: negate(bounds.hi), hi: negate(bounds.lo), loClosed: bounds.hiClosed, hiClosed: bounds.loClosed };
    return { t: 'union', parts: [mirror, interval] };
  }
  return interval;
}

function negate(s: Scalar): Scalar {
  return { t: 'scalar', p: P.neg(s.p) };
}

function isAbsOfName(s: Scalar): boolean {
  const [t] = s.p.terms;
  return s.p.terms.length === 1 && t !== undefined && t.factors.length === 1 && t.factors[0]?.[0].name === 'abs' && t.factors[0][1] === 1;
}

function normalizeText(text: string): string {
  const s = text
    .replace(/\\[a-zA-Z]+\s*/g, ' ')
    .replace(/[{}$]/g, '')
    .replace(/^[\s(\[.,:;!'"]+|[\s)\].,:;!'"]+$/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return s.length > 1 ? s.toLowerCase() : s;
}

function textEqual(a: Value, b: Value): boolean {
  const spelling = (v: Value): string | null => (v.t === 'text' ? v.text : v.t === 'scalar' ? (v.spelling ?? null) : null);
  const sa = spelling(a);
  const sb = spelling(b);
  if (sa === null || sb === null) return false;
  const na = normalizeText(sa);
  return na !== '' && na === normalizeText(sb);
}
