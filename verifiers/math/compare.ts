import type { Budget } from './budget';
import type { Logic, Scalar, Value } from './canonical';
import { cAbs, cDiv, cIsFinite, cSub, type C } from './complex';
import { evalPoly, Point, POINTS } from './numeric';
import type { RelOp } from './parse/ast';
import * as P from './poly';
import { q, qAbs, qCmp, qSub, qToNumber } from './rational';
import { flipOp, relationToSet, SetAlgebra, subjectOf } from './sets';

export interface CompareConfig {
  /**
   * Decimal places to which an answer written as a decimal must agree: |a − b| ≤ ½·10^-precision.
   * Exact answers (integers, fractions, radicals) are compared exactly, whatever the precision.
   */
  precision: number;
}

/** Points of the randomized check that must exist (see {@link Comparer.numerically}). */
const MIN_POINTS = 3;
/** Relative tolerance for two exact expressions evaluated in float64 (identities like tan²+1 = sec²). */
const EXACT_RTOL = 1e-9;

/** Which rule made two values equal, or null when they differ. */
export type Rule = string | null;

export class Comparer {
  private readonly sets: SetAlgebra;

  constructor(
    private readonly config: CompareConfig,
    private readonly budget: Budget,
  ) {
    this.sets = new SetAlgebra((a, b) => this.scalars(a, b) !== null, budget);
  }

  compare(gold: Value, pred: Value): Rule {
    this.budget.spend(1);
    if (gold.t === 'choice' || pred.t === 'choice') return this.choice(gold, pred);
    if (gold.t === 'text' || pred.t === 'text') return textEqual(gold, pred) ? 'text' : null;
    if (gold.t === 'logic' || pred.t === 'logic') return this.logic(gold, pred);
    if (gold.t === 'rel' && pred.t === 'rel') return this.relations(gold, pred);
    if (gold.t === 'rel') return this.relationAgainst(gold, pred);
    if (pred.t === 'rel') return this.relationAgainst(pred, gold);
    if (gold.t === 'tuple' && pred.t === 'list') return this.tupleAgainstList(gold.items, pred.items, true);
    if (gold.t === 'list' && pred.t === 'tuple') return this.tupleAgainstList(pred.items, gold.items, false);
    if (gold.t === 'list' || pred.t === 'list') return this.unordered(itemsOf(gold), itemsOf(pred), 'answers');
    if (gold.t === 'scalar' && pred.t === 'scalar') return this.scalars(gold, pred);
    if (gold.t === 'set' && pred.t === 'set') return this.unordered(gold.items, pred.items, 'set');
    if (gold.t === 'tuple' && pred.t === 'tuple') return this.ordered(gold.items, pred.items, 'tuple');
    if (gold.t === 'ratio' && pred.t === 'ratio') return this.ordered(gold.items, pred.items, 'ratio') ?? this.ratios(gold.items, pred.items);
    if (gold.t === 'ratio' && pred.t === 'scalar') return this.ratios(gold.items, [pred, ONE_SCALAR]);
    if (gold.t === 'scalar' && pred.t === 'ratio') return this.ratios([gold, ONE_SCALAR], pred.items);
    if (gold.t === 'matrix' || pred.t === 'matrix') return this.matrices(gold, pred);
    if (isSetLike(gold) && isSetLike(pred)) return this.setLike(gold, pred);
    return null;
  }

  /**
   * A tuple against a list. Components named by single variables (`y = 3, x = 2`) take the
   * tuple's order by name: (x, y), (a, b, c), (p, q). A gold tuple answered by a bare list keeps
   * its order (`(3, 4)` is not `4, 3`); a gold list (several answers) takes a tuple in any order.
   */
  private tupleAgainstList(tuple: Value[], list: Value[], goldIsTuple: boolean): Rule {
    const named = namedComponents(list);
    if (named) return goldIsTuple ? this.ordered(tuple, named, 'tuple_by_name') : this.ordered(named, tuple, 'tuple_by_name');
    if (goldIsTuple && !list.some((v) => v.t === 'rel')) return this.ordered(tuple, list, 'tuple');
    return goldIsTuple ? this.unordered(tuple, list, 'answers') : this.unordered(list, tuple, 'answers');
  }

  /** `(C) 18` is answered by its letter, by its value, or by both with the same letter. */
  private choice(gold: Value, pred: Value): Rule {
    if (gold.t === 'choice' && pred.t === 'choice') return gold.letter === pred.letter ? 'choice' : null;
    const [labelled, other] = gold.t === 'choice' ? [gold, pred] : [pred as Extract<Value, { t: 'choice' }>, gold];
    if (letterOf(other) !== null) return letterOf(other) === labelled.letter ? 'choice' : null;
    const rule = gold.t === 'choice' ? this.compare(gold.value, pred) : this.compare(gold, labelled.value);
    return rule ? `choice_value:${rule}` : null;
  }

  /**
   * `a` is the gold's side. Percent is one-directional: a gold `p\%` also accepts the bare `p`, but
   * a bare gold `q` accepts only `q` and `(100q)\%`, never `q\%`. Degrees are both ways, since
   * `d°` and `d·π/180` are the same angle.
   */
  scalars(a: Scalar, b: Scalar): Rule {
    const direct = this.polys(a.p, b.p);
    if (direct) return direct;
    if (a.alt && !b.marker && this.polys(a.alt, b.p)) return a.marker === 'percent' ? 'percent_as_number' : 'degrees_as_radians';
    if (b.alt && b.marker === 'degree' && !a.marker && this.polys(a.p, b.alt)) return 'degrees_as_radians';
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

  /**
   * The randomized check, at the points of numeric.ts (both signs, several sizes). Two expressions
   * are equal on their common real domain: at every point where both evaluate through real steps
   * only they must agree, and there must be at least MIN_POINTS such points. So `\sqrt{x^2}` is not
   * `x` (they differ at x < 0) but `\sqrt{x}\sqrt{x}` is `x` and `\ln(x^2)` is `2\ln x` (the
   * negative points are outside the left or right side's real domain and do not count). Where the
   * real domains barely meet (`\sqrt{x-20}`) or a side is complex by nature (`i`, `f(x)`), the
   * principal-branch complex values must agree at every finite point instead.
   */
  private numerically(a: P.Poly, b: P.Poly, inexact: boolean): boolean {
    let finite = 0;
    let realAgree = 0;
    let complexAgree = true;
    const atol = inexact ? 0.5 * 10 ** -this.config.precision : 0;
    for (let i = 0; i < POINTS; i++) {
      this.budget.spend(4 * (a.terms.length + b.terms.length));
      const point = new Point(i);
      const ea = evalPoly(a, point);
      const eb = evalPoly(b, point);
      if (!cIsFinite(ea.v) || !cIsFinite(eb.v)) continue;
      finite++;
      const scale = Math.max(1, cAbs(ea.v), cAbs(eb.v));
      const close = cAbs(cSub(ea.v, eb.v)) <= atol + EXACT_RTOL * scale;
      if (ea.real && eb.real) {
        if (!close) return false;
        realAgree++;
      } else if (!close) complexAgree = false;
    }
    return realAgree >= MIN_POINTS || (complexAgree && finite >= MIN_POINTS);
  }

  /**
   * `2:4` is `1:2`, and `1:2` is `\frac{1}{2}`: ratios of non-zero constants compare by cross
   * products. A zero part keeps the ratio as written, so the times `12:00` and `1:00` differ.
   */
  private ratios(a: Value[], b: Value[]): Rule {
    if (a.length !== b.length) return null;
    const parts = (xs: Value[]) => xs.map((x) => (x.t === 'scalar' && !x.marker && P.constantValue(x.p) !== null && x.p.terms.length > 0 ? x.p : null));
    const pa = parts(a);
    const pb = parts(b);
    if (pa.some((p) => p === null) || pb.some((p) => p === null)) return null;
    const [a0, b0] = [pa[0] as P.Poly, pb[0] as P.Poly];
    for (let i = 1; i < pa.length; i++) {
      if (!this.polys(P.mul(pa[i] as P.Poly, b0, this.budget), P.mul(a0, pb[i] as P.Poly, this.budget))) return null;
    }
    return 'ratio';
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
    const sa = this.sets.spans(a);
    const sb = this.sets.spans(b);
    if (sa && sb) return this.sets.equal(sa, sb) ? 'interval' : null;
    // Endpoints that do not order (symbolic bounds): compare the parts as written.
    if (a.t === 'interval' && b.t === 'interval') return this.sameInterval(a, b) ? 'interval' : null;
    if (a.t === 'union' && b.t === 'union') return this.ordered(a.parts, b.parts, 'interval');
    return null;
  }

  private sameInterval(a: Extract<Value, { t: 'interval' }>, b: Extract<Value, { t: 'interval' }>): boolean {
    if (!this.scalars(a.lo, b.lo) || !this.scalars(a.hi, b.hi)) return false;
    return (isInfinite(a.lo) || a.loClosed === b.loClosed) && (isInfinite(a.hi) || a.hiClosed === b.hiClosed);
  }

  /**
   * Conditions joined by and/or/commas against any other answer: as the sets they describe when
   * they are about one unknown with constant bounds (a list of intervals on the other side is their
   * union), else condition by condition, unordered, when neither side says `and` where the other
   * says `or`.
   */
  private logic(a: Value, b: Value): Rule {
    const sa = this.sets.spans(a, true);
    const sb = this.sets.spans(b, true);
    if (sa && sb) {
      // Both stated as conditions: they must be about the same unknown (`x ≤ 2 or x > 3` is not `y ≤ 2 or y > 3`).
      const [ua, ub] = [subjectOf(a), subjectOf(b)];
      if (ua !== null && ub !== null && ua !== ub) return null;
      return this.sets.equal(sa, sb) ? 'relation_as_set' : null;
    }
    if (a.t !== 'logic' || b.t !== 'logic' || !compatible(a, b)) return null;
    return this.unordered(a.items, b.items, 'conditions');
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
    const described = relationToSet(rel);
    if (described && isSetLike(other)) return this.setLike(described.set, other) ? 'relation_as_set' : null;
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
    // `x < 3` and `y < 3` are about different unknowns (with label.strict false both are renamed v0).
    if (sa && sb) return sa.subject === sb.subject && this.setLike(sa.set, sb.set) ? 'inequality' : null;
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
      const r = cDiv(evalPoly(fa, point).v, evalPoly(fb, point).v);
      if (!cIsFinite(r)) continue;
      valid++;
      if (k === null) k = r;
      else if (cAbs(cSub(r, k)) > 1e-6 * Math.max(1, cAbs(k))) return false;
    }
    if (k === null || valid < MIN_POINTS || cAbs(k) < 1e-12 || Math.abs(k.im) > 1e-9) return false;
    return sign === 'any' || (sign === 'positive' ? k.re > 0 : k.re < 0);
  }
}

const ONE_SCALAR: Scalar = { t: 'scalar', p: P.ONE_POLY };

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

/** The values of `x = 2, y = 3` sorted by their variables' names, or null unless every item is such an equation. */
function namedComponents(items: Value[]): Value[] | null {
  const named: Array<[string, Value]> = [];
  for (const item of items) {
    if (item.t !== 'rel' || item.ops.length !== 1 || item.ops[0] !== '=') return null;
    const [name, value] = item.items;
    const key = name ? variableName(name) : null;
    if (key === null || value === undefined || named.some(([k]) => k === key)) return null;
    named.push([key, value]);
  }
  named.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return named.map(([, v]) => v);
}

function variableName(v: Value): string | null {
  if (v.t !== 'scalar' || v.p.terms.length !== 1) return null;
  const t = v.p.terms[0] as P.Term;
  const [f] = t.factors;
  if (t.factors.length !== 1 || !f || f[1] !== 1 || f[0].kind !== 'sym' || t.coef.n !== 1n || t.coef.d !== 1n || t.rad !== 1n) return null;
  return f[0].name;
}

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
  return v.t === 'interval' || v.t === 'union' || v.t === 'setop' || v.t === 'set' || (v.t === 'tuple' && v.bracket === '(' && v.items.length === 2);
}

function isInfinite(s: Scalar): boolean {
  return s.p.terms.some((t) => t.factors.some(([a]) => a.kind === 'inf'));
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

function difference(rel: Extract<Value, { t: 'rel' }>, budget: Budget): P.Poly | null {
  const [l, r] = rel.items;
  if (l?.t !== 'scalar' || r?.t !== 'scalar') return null;
  return P.add(l.p, P.neg(r.p), budget);
}

/** `and` against `or` is a different claim; a comma-only list may be read either way. */
function compatible(a: Logic, b: Logic): boolean {
  return a.op === b.op || a.op === 'list' || b.op === 'list';
}

/** The letter of an answer that is only a choice letter (`C`, `\text{(C)}`), else null. */
function letterOf(v: Value): string | null {
  const spelled = v.t === 'text' ? v.text : v.t === 'scalar' ? v.spelling : undefined;
  if (spelled === undefined) return null;
  const m = /^\s*(?:\(\s*)?([A-E])\s*(?:\)\s*)?$/.exec(spelled.replace(/\\[a-zA-Z]+\s*|[{}]/g, ''));
  return m ? (m[1] as string) : null;
}

const LEADING = /[\s([.,:;!'"]/;
const TRAILING = /[\s)\].,:;!'"]/;

/** `s` without its leading run of LEADING and trailing run of TRAILING characters (found from each end, not by a pattern retried from every character of a run). */
function trimRuns(s: string): string {
  let start = 0;
  while (start < s.length && LEADING.test(s[start]!)) start++;
  let end = s.length;
  while (end > start && TRAILING.test(s[end - 1]!)) end--;
  return s.slice(start, end);
}

function normalizeText(text: string): string {
  const s = trimRuns(text.replace(/\\[a-zA-Z]+\s*/g, ' ').replace(/[{}$]/g, ''))
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
