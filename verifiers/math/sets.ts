import type { Budget } from './budget';
import { show, type Logic, type Scalar, type Value } from './canonical';
import { evalPoly, Point } from './numeric';
import type { RelOp } from './parse/ast';
import * as P from './poly';
import { qToNumber, ZERO } from './rational';

/**
 * Subsets of the real line as sorted, disjoint spans, so that every spelling of one set compares
 * equal: `x \le 2 \text{ or } x > 3`, `(-\infty, 2] \cup (3, \infty)`, `x \in \ldots`, `1 < x < 3`,
 * `x > 1 \land x < 3`. Endpoints order by their float values; ties are decided by the comparer's own
 * scalar equality (exact, or within the label's decimal tolerance).
 */
export interface Span {
  lo: Scalar;
  hi: Scalar;
  loClosed: boolean;
  hiClosed: boolean;
  /** Float values of the endpoints (±Infinity for ∞), for ordering only. */
  l: number;
  h: number;
}

export type SameScalar = (a: Scalar, b: Scalar) => boolean;

/** Endpoints farther apart than this (plus a float64 margin) are never equal: the widest decimal tolerance. */
const TIE_WINDOW = 0.5;

type Rel = Extract<Value, { t: 'rel' }>;

const INF: Scalar = { t: 'scalar', p: P.fromAtom(P.atom('inf', '∞')) };
const NEG_INF: Scalar = { t: 'scalar', p: P.neg(P.fromAtom(P.atom('inf', '∞'))) };
const ZERO_SCALAR: Scalar = { t: 'scalar', p: P.constant(ZERO) };

export class SetAlgebra {
  constructor(
    private readonly same: SameScalar,
    private readonly budget: Budget,
  ) {}

  /**
   * The set a value describes as sorted, merged spans; null when it is not a subset of the line
   * (a tuple of three, a matrix), its endpoints do not order (symbolic bounds), or its conditions
   * are about different unknowns (`x > 0 \land y > 0`). `lists`: a list of intervals is their union.
   */
  spans(v: Value, lists = false): Span[] | null {
    this.budget.spend(1);
    switch (v.t) {
      case 'interval': {
        const span = this.span(v.lo, v.hi, v.loClosed, v.hiClosed);
        return span ? this.union([span]) : null;
      }
      case 'tuple': {
        if (v.bracket !== '(' || v.items.length !== 2) return null;
        const [lo, hi] = v.items;
        if (lo?.t !== 'scalar' || hi?.t !== 'scalar') return null;
        const span = this.span(lo, hi, false, false);
        return span ? this.union([span]) : null;
      }
      case 'set': {
        const points: Span[] = [];
        for (const item of v.items) {
          const span = item.t === 'scalar' ? this.span(item, item, true, true) : null;
          if (!span) return null;
          points.push(span);
        }
        return this.union(points);
      }
      case 'union':
        return this.unionOf(v.parts, lists);
      case 'setop': {
        const left = this.spans(v.left);
        const right = this.spans(v.right);
        if (!left || !right) return null;
        return this.intersect(left, v.op === 'cap' ? right : this.complement(right));
      }
      case 'list':
        return lists ? this.unionOf(v.items, lists) : null;
      case 'rel': {
        const described = relationToSet(v);
        return described ? this.spans(described.set) : null;
      }
      case 'logic':
        return subjectOf(v) === null ? null : this.logic(v);
      default:
        return null;
    }
  }

  private unionOf(parts: Value[], lists: boolean): Span[] | null {
    const all: Span[] = [];
    for (const part of parts) {
      const s = this.spans(part, lists);
      if (!s) return null;
      all.push(...s);
    }
    return this.union(all);
  }

  /**
   * `or` is the union and `and` the intersection. Conditions joined by commas only are read as
   * the union when their sets are pairwise disjoint (`x < 2, x > 3` lists the pieces of a solution
   * set, as `x = 1, x = 2` lists its points) and as the intersection when they overlap
   * (`x > 1, x < 3` states constraints; the union would be all of ℝ, which nobody writes so).
   */
  private logic(v: Logic): Span[] | null {
    const parts: Span[][] = [];
    for (const item of v.items) {
      const s = this.spans(item);
      if (!s) return null;
      parts.push(s);
    }
    const union = () => this.union(parts.flat());
    const intersection = () => parts.slice(1).reduce((acc, s) => this.intersect(acc, s), parts[0] as Span[]);
    if (v.op === 'or') return union();
    if (v.op === 'and') return intersection();
    const pieces = parts.reduce((n, s) => n + s.length, 0);
    return union().length === pieces ? union() : intersection();
  }

  /** Sorts spans and merges those that overlap or touch at an endpoint one of them includes. */
  union(spans: Span[]): Span[] {
    this.budget.spend(spans.length * 4);
    const sorted = [...spans].filter((s) => !this.isEmpty(s)).sort((a, b) => this.order(a.lo, a.l, b.lo, b.l) || this.order(a.hi, a.h, b.hi, b.h));
    const out: Span[] = [];
    for (const s of sorted) {
      const last = out[out.length - 1];
      const gap = last ? this.order(s.lo, s.l, last.hi, last.h) : 1;
      if (last && (gap < 0 || (gap === 0 && (s.loClosed || last.hiClosed)))) {
        if (this.order(s.lo, s.l, last.lo, last.l) === 0) last.loClosed = last.loClosed || s.loClosed;
        const further = this.order(s.hi, s.h, last.hi, last.h);
        if (further > 0) Object.assign(last, { hi: s.hi, h: s.h, hiClosed: s.hiClosed });
        else if (further === 0) last.hiClosed = last.hiClosed || s.hiClosed;
        continue;
      }
      out.push({ ...s });
    }
    return out;
  }

  intersect(a: Span[], b: Span[]): Span[] {
    this.budget.spend(a.length * b.length);
    const out: Span[] = [];
    for (const x of a) {
      for (const y of b) {
        const lo = this.order(x.lo, x.l, y.lo, y.l);
        const hi = this.order(x.hi, x.h, y.hi, y.h);
        const from = lo >= 0 ? x : y;
        const to = hi <= 0 ? x : y;
        const span: Span = {
          lo: from.lo,
          l: from.l,
          loClosed: lo === 0 ? x.loClosed && y.loClosed : from.loClosed,
          hi: to.hi,
          h: to.h,
          hiClosed: hi === 0 ? x.hiClosed && y.hiClosed : to.hiClosed,
        };
        if (!this.isEmpty(span)) out.push(span);
      }
    }
    return this.union(out);
  }

  /** ℝ minus the spans (sorted and merged): the gaps between them. */
  complement(spans: Span[]): Span[] {
    const out: Span[] = [];
    let from: Pick<Span, 'lo' | 'l' | 'loClosed'> = { lo: NEG_INF, l: -Infinity, loClosed: false };
    for (const s of spans) {
      const gap: Span = { ...from, hi: s.lo, h: s.l, hiClosed: !s.loClosed };
      if (!this.isEmpty(gap)) out.push(gap);
      from = { lo: s.hi, l: s.h, loClosed: !s.hiClosed };
    }
    const last: Span = { ...from, hi: INF, h: Infinity, hiClosed: false };
    if (!this.isEmpty(last)) out.push(last);
    return out;
  }

  /** Two normalized span lists describe the same set. */
  equal(a: Span[], b: Span[]): boolean {
    if (a.length !== b.length) return false;
    return a.every((x, i) => {
      const y = b[i] as Span;
      return this.order(x.lo, x.l, y.lo, y.l) === 0 && this.order(x.hi, x.h, y.hi, y.h) === 0 && x.loClosed === y.loClosed && x.hiClosed === y.hiClosed;
    });
  }

  private span(lo: Scalar, hi: Scalar, loClosed: boolean, hiClosed: boolean): Span | null {
    const l = realValue(lo.p);
    const h = realValue(hi.p);
    if (l === null || h === null) return null;
    // An infinite endpoint is never in the set, however the bracket is written.
    return { lo, hi, l, h, loClosed: loClosed && Number.isFinite(l), hiClosed: hiClosed && Number.isFinite(h) };
  }

  private isEmpty(s: Span): boolean {
    const c = this.order(s.lo, s.l, s.hi, s.h);
    return c > 0 || (c === 0 && !(s.loClosed && s.hiClosed));
  }

  private order(a: Scalar, av: number, b: Scalar, bv: number): number {
    // Every comparison counts (with the copies around it), so thousands of conditions end as too_complex.
    this.budget.spend(2);
    if (av === bv) return 0;
    // The comparer's equality only matters within its widest tolerance (half a unit at precision 0).
    const near = Number.isFinite(av) && Number.isFinite(bv) && Math.abs(av - bv) <= TIE_WINDOW + 1e-6 * Math.max(Math.abs(av), Math.abs(bv));
    if (near && this.same(a, b)) return 0;
    return av < bv ? -1 : 1;
  }
}

/** The real value of a constant (∞ included), or null when it has variables or is not real. */
export function realValue(p: P.Poly): number | null {
  const c = P.constantValue(p);
  if (c !== null) return qToNumber(c);
  const [only] = p.terms;
  if (p.terms.length === 1 && only && only.key === '∞') return only.coef.n > 0n ? Infinity : -Infinity;
  for (const a of P.atomsOf(p).values()) if (a.kind === 'sym' || a.kind === 'opaque' || a.kind === 'i' || a.kind === 'inf') return null;
  const v = evalPoly(p, new Point(0)).v;
  if (Math.abs(v.im) > 1e-12 || Number.isNaN(v.re)) return null;
  return v.re;
}

function isConstantScalar(v: Value | undefined): v is Scalar {
  return v?.t === 'scalar' && realValue(v.p) !== null;
}

export function flipOp(op: RelOp): RelOp {
  const flips: Partial<Record<RelOp, RelOp>> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=' };
  return flips[op] ?? op;
}

/** The unknown all of a value's conditions are about (`x`, `|z|`), or null when they differ. */
export function subjectOf(v: Value): string | null {
  if (v.t === 'rel') return relationToSet(v)?.subject ?? null;
  if (v.t !== 'logic') return null;
  let subject: string | null = null;
  for (const item of v.items) {
    const s = subjectOf(item);
    if (s === null || (subject !== null && s !== subject)) return null;
    subject = s;
  }
  return subject;
}

/**
 * A relation in one unknown with constant bounds as the set it describes, with that unknown:
 * `-2 \le x \le 7` is [-2, 7], `x > 5` is (5, ∞), `x = 3` is {3}, `x \ne 3` is ℝ∖{3}, and
 * `1 \le |z| \le 3/2` is [-3/2,-1] ∪ [1,3/2].
 */
export function relationToSet(rel: Rel): { set: Value; subject: string } | null {
  const { ops, items, nameLike } = rel;
  const bounds: { lo: Scalar; hi: Scalar; loClosed: boolean; hiClosed: boolean } = { lo: NEG_INF, hi: INF, loClosed: false, hiClosed: false };
  let subject = -1;
  if (items.length === 2) {
    subject = nameLike[0] && isConstantScalar(items[1]) ? 0 : nameLike[1] && isConstantScalar(items[0]) ? 1 : -1;
    if (subject < 0) return null;
    const op = subject === 0 ? (ops[0] as RelOp) : flipOp(ops[0] as RelOp);
    const c = items[1 - subject] as Scalar;
    const name = show(items[subject] as Value);
    if (op === '<' || op === '<=') Object.assign(bounds, { hi: c, hiClosed: op === '<=' });
    else if (op === '>' || op === '>=') Object.assign(bounds, { lo: c, loClosed: op === '>=' });
    else if (op === '=') return isAbsOfName(items[subject] as Value) ? null : { set: { t: 'set', items: [c] }, subject: name };
    else if (op === '!=') {
      const parts: Value[] = [
        { t: 'interval', lo: NEG_INF, hi: c, loClosed: false, hiClosed: false },
        { t: 'interval', lo: c, hi: INF, loClosed: false, hiClosed: false },
      ];
      return isAbsOfName(items[subject] as Value) ? null : { set: { t: 'union', parts }, subject: name };
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
  const subj = items[subject] as Value;
  const name = show(subj);
  if (isAbsOfName(subj)) {
    // |x| in [a, b]: x in [-b, -a] ∪ [a, b], where a below 0 (or no lower bound) is 0 included.
    const a = realValue(bounds.lo.p);
    if (a === null) return null;
    if (a < 0) Object.assign(bounds, { lo: ZERO_SCALAR, loClosed: true });
    const mirror: Value = { t: 'interval', lo: negate(bounds.hi), hi: negate(bounds.lo), loClosed: bounds.hiClosed, hiClosed: bounds.loClosed };
    return { set: { t: 'union', parts: [mirror, { t: 'interval', ...bounds }] }, subject: name };
  }
  return { set: { t: 'interval', ...bounds }, subject: name };
}

function negate(s: Scalar): Scalar {
  return { t: 'scalar', p: P.neg(s.p) };
}

function isAbsOfName(v: Value): boolean {
  if (v.t !== 'scalar') return false;
  const [t] = v.p.terms;
  return v.p.terms.length === 1 && t !== undefined && t.factors.length === 1 && t.factors[0]?.[0].name === 'abs' && t.factors[0][1] === 1;
}
