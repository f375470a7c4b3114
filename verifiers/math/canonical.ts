import { TooComplex, type Budget } from './budget';
import { extAdd, extDiv, extMul, extPow } from './extended';
import { isNameLike, type Join, type Node, type RelOp } from './parse/ast';
import * as P from './poly';
import { ONE, q, qAbs, qCmp, qInt, qMul, qPowInt, ZERO, type Q } from './rational';

/**
 * The canonical value of an answer: scalars as exact polynomials ({@link P.Poly}), and the
 * structures around them (tuples, sets, intervals, matrices, relations, several answers).
 */
export type Value =
  | Scalar
  | { t: 'tuple'; items: Value[]; bracket: '(' | '[' | '{' | '<' }
  | { t: 'set'; items: Value[] }
  | { t: 'list'; items: Value[] }
  | { t: 'interval'; lo: Scalar; hi: Scalar; loClosed: boolean; hiClosed: boolean }
  | { t: 'union'; parts: Value[] }
  | { t: 'setop'; op: 'cap' | 'minus'; left: Value; right: Value }
  | { t: 'matrix'; rows: Value[][] }
  | { t: 'rel'; ops: RelOp[]; items: Value[]; nameLike: boolean[] }
  /**
   * Conditions joined by words: `x \le 2 \text{ or } x > 3` (op `or`), `x > 1 \land x < 3` (`and`), or
   * by commas only (`list`: `x < 2, x > 3`), whose reading the comparison decides (compare.ts).
   */
  | Logic
  | { t: 'ratio'; items: Value[] }
  | { t: 'text'; text: string }
  | { t: 'choice'; letter: string; value: Value };

export interface Logic {
  t: 'logic';
  op: 'and' | 'or' | 'list';
  items: Value[];
}

export interface Scalar {
  t: 'scalar';
  p: P.Poly;
  /**
   * How else a marked quantity may be read: `28\%` is 0.28 but also the bare 28 a model may box;
   * `90^\circ` is 90 but also π/2. Only the marked side carries it.
   */
  alt?: P.Poly;
  marker?: 'percent' | 'degree';
  /** How the answer is spelled when it is a bare word (`odd`, `E`), for comparison with `\text{…}`. */
  spelling?: string;
}

export class NotAValue extends Error {}

export interface CanonicalOptions {
  /** False: variables are renamed by order of first appearance, so `f(x)` equals `f(y)`. */
  strict: boolean;
}

const scalar = (p: P.Poly): Scalar => ({ t: 'scalar', p });

class Canonicalizer {
  private readonly renames = new Map<string, string>();

  constructor(
    private readonly budget: Budget,
    private readonly options: CanonicalOptions,
  ) {}

  private symbol(name: string): P.Poly {
    let key = name;
    if (!this.options.strict) {
      key = this.renames.get(name) ?? `v${this.renames.size}`;
      this.renames.set(name, key);
    }
    return P.fromAtom(P.atom('sym', key));
  }

  /** One answer: `\pm` expanded into its alternatives, each canonicalized. */
  item(node: Node): Value {
    const variants = expandPm(node, this.budget);
    if (variants.length === 1) return this.value(variants[0] as Node);
    return { t: 'list', items: variants.map((v) => this.value(v)) };
  }

  private items(nodes: Node[]): Value[] {
    const out: Value[] = [];
    for (const n of nodes) {
      const v = this.item(n);
      if (v.t === 'list' && n.k !== 'list') out.push(...v.items);
      else out.push(v);
    }
    this.budget.checkItems(out.length);
    return out;
  }

  value(node: Node): Value {
    this.budget.spend(1);
    switch (node.k) {
      case 'text':
        return { t: 'text', text: node.text };
      case 'choice':
        return { t: 'choice', letter: node.letter, value: this.value(node.value) };
      case 'tuple':
        return { t: 'tuple', items: this.items(node.items), bracket: node.bracket };
      case 'set':
        return { t: 'set', items: this.items(node.items) };
      case 'list': {
        const items = this.items(node.items);
        // Joins still line up with the items unless a `\pm` expanded one of them.
        if (node.joins && items.length === node.items.length) {
          const logic = logicOf(items, node.joins);
          if (logic) return logic;
        }
        return flattenList(items);
      }
      case 'interval':
        return {
          t: 'interval',
          lo: this.scalarOf(node.lo),
          hi: this.scalarOf(node.hi),
          loClosed: node.loClosed,
          hiClosed: node.hiClosed,
        };
      case 'union':
        return { t: 'union', parts: node.parts.map((p) => this.value(p)) };
      case 'setop':
        return { t: 'setop', op: node.op, left: this.value(node.left), right: this.value(node.right) };
      case 'ratio':
        return { t: 'ratio', items: node.items.map((i) => this.value(i)) };
      case 'rel':
        return this.relation(node.ops, node.items);
      case 'matrix':
        return { t: 'matrix', rows: node.rows.map((r) => r.map((cell) => this.value(cell))) };
      case 'percent': {
        const inner = this.scalarOf(node.arg);
        return { t: 'scalar', p: P.scale(inner.p, q(1n, 100n), this.budget), alt: inner.p, marker: 'percent' };
      }
      case 'degree': {
        const inner = this.scalarOf(node.arg);
        const radians = P.mul(inner.p, P.scale(P.fromAtom(P.atom('pi', 'π')), q(1n, 180n)), this.budget);
        return { t: 'scalar', p: inner.p, alt: radians, marker: 'degree' };
      }
      default: {
        const arith = this.arith(node);
        if (arith.t === 'scalar') {
          const spelling = spell(node);
          if (spelling !== null) arith.spelling = spelling;
        }
        return arith;
      }
    }
  }

  private relation(ops: RelOp[], nodes: Node[]): Value {
    const nameLike = nodes.map(isNameLike);
    // A chain of equalities and approximations (`x = 5+5+1 = 7 = 11`, `x = 1/3 \approx 0.33`) states
    // its answer at the end: the last exact step, or the last step when all are approximate.
    if (ops.every((o) => o === '=' || o === '~=') && (nodes.length > 2 || ops[0] === '~=')) {
      let chosen = -1;
      for (let i = ops.length - 1; i >= 0; i--) {
        if (ops[i] === '=') {
          chosen = i + 1;
          break;
        }
      }
      if (chosen < 0) chosen = nameLike[0] ? nodes.length - 1 : 0;
      return this.value(nodes[chosen] as Node);
    }
    if (ops.length === 1 && ops[0] === 'in' && nameLike[0]) return this.value(nodes[1] as Node);
    const items = nodes.map((n) => this.value(n));
    // `\frac{1}{2} \cdot 20 = 10`: an equation between constants is a computation; its result is the answer.
    if (ops.length === 1 && ops[0] === '=' && items.every(isConstantValue)) return items[1] as Value;
    return { t: 'rel', ops, items, nameLike };
  }

  private scalarOf(node: Node): Scalar {
    const v = this.value(node);
    if (v.t !== 'scalar') throw new NotAValue(`expected a number, found a ${v.t}`);
    return v;
  }

  private poly(node: Node): P.Poly {
    const v = this.arith(node);
    if (v.t !== 'scalar') throw new NotAValue(`expected a number, found a ${v.t}`);
    return v.p;
  }

  /** Arithmetic: scalars through the exact polynomial algebra, matrices element by element. */
  private arith(node: Node): Value {
    const b = this.budget;
    switch (node.k) {
      case 'num':
        return scalar(P.constant(node.value, node.decimal));
      case 'sym':
        return scalar(this.symbol(node.name));
      case 'const':
        return scalar(P.fromAtom(P.atom(node.name === 'pi' ? 'pi' : node.name === 'inf' ? 'inf' : node.name, CONST_KEYS[node.name])));
      case 'add': {
        let acc: Value | null = null;
        for (const t of node.terms) {
          const v = this.operand(t);
          acc = acc === null ? v : combine(acc, v, 'add', b);
        }
        return acc as Value;
      }
      case 'neg':
        return mapScalars(this.operand(node.arg), (p) => P.neg(p));
      case 'mul': {
        let acc: Value | null = null;
        for (const f of node.factors) {
          const v = this.operand(f);
          acc = acc === null ? v : combine(acc, v, 'mul', b);
        }
        return acc as Value;
      }
      case 'div': {
        const num = this.operand(node.num);
        const den = this.poly(node.den);
        return mapScalars(num, (p) => extDiv(p, den) ?? P.div(p, den, b));
      }
      case 'pow':
        return scalar(this.power(this.poly(node.base), this.poly(node.exp)));
      case 'root': {
        const index = P.constantValue(this.poly(node.index));
        if (index === null || index.d !== 1n || index.n < 2n) {
          return scalar(this.power(this.poly(node.arg), P.reciprocal(this.poly(node.index), b)));
        }
        return scalar(this.power(this.poly(node.arg), P.constant(q(1n, index.n))));
      }
      case 'fn': {
        // `\cos 30^\circ`: inside a trigonometric function degrees are converted to radians.
        const arg = TRIG.has(node.name) ? degreesToRadians(node.arg) : node.arg;
        return scalar(this.func(node.name, this.poly(arg), node.base ? this.poly(node.base) : undefined));
      }
      case 'apply': {
        const args = node.args.map((a) => this.value(a));
        return scalar(P.fromAtom(opaqueAtom(node.name, args)));
      }
      case 'opaque': {
        const args = node.args.map((a) => this.value(a));
        return scalar(P.fromAtom(opaqueAtom(node.name, args)));
      }
      case 'factorial': {
        const arg = this.poly(node.arg);
        const c = P.constantValue(arg);
        if (c !== null && c.d === 1n && c.n >= 0n) {
          if (c.n > 2000n) throw new TooComplex('maxBits');
          let f = 1n;
          for (let i = 2n; i <= c.n; i++) f *= i;
          b.spend(Number(c.n));
          b.checkBits(f.toString(16).length * 4);
          return scalar(P.constant(qInt(f), arg.inexact));
        }
        return scalar(P.fromAtom(P.atom('fn', 'factorial', [arg])));
      }
      case 'binom': {
        const n = this.poly(node.n);
        const r = this.poly(node.r);
        const cn = P.constantValue(n);
        const cr = P.constantValue(r);
        if (cn && cr && cn.d === 1n && cr.d === 1n && cr.n >= 0n && cr.n <= 5000n) {
          let acc: Q = ONE;
          for (let i = 0n; i < cr.n; i++) acc = qMul(acc, q(cn.n - i, i + 1n), b);
          return scalar(P.constant(acc));
        }
        if (cr && cr.d === 1n && cr.n >= 0n && cr.n <= 16n) {
          // \binom{n}{2} = n(n-1)/2: a small constant r expands into a polynomial in n.
          let acc: P.Poly = P.ONE_POLY;
          for (let i = 0n; i < cr.n; i++) acc = P.scale(P.mul(acc, P.add(n, P.constant(qInt(-i)), b), b), q(1n, i + 1n), b);
          return scalar(acc);
        }
        return scalar(P.fromAtom(opaqueAtom('binom', [scalar(n), scalar(r)])));
      }
      case 'matrix':
      case 'tuple':
        return this.value(node);
      default:
        throw new NotAValue(`a ${node.k} inside arithmetic`);
    }
  }

  /** Operands of + and ×: percentages and degrees lose their marker inside arithmetic. */
  private operand(node: Node): Value {
    if (node.k === 'percent') return scalar(P.scale(this.poly(node.arg), q(1n, 100n), this.budget));
    if (node.k === 'degree') return scalar(this.poly(node.arg));
    if (node.k === 'text' && node.text === '') return scalar(P.ONE_POLY);
    return this.arith(node);
  }

  private power(base: P.Poly, exp: P.Poly): P.Poly {
    const extended = extPow(base, exp);
    if (extended) return extended;
    const b = this.budget;
    const e = P.constantValue(exp);
    const c = P.constantValue(base);
    if (e !== null) {
      if (e.d === 1n) {
        if (c === null && qCmp(qAbs(e), qInt(64)) > 0) throw new TooComplex('maxTerms');
        if (c !== null) return P.constant(qPowInt(c, e.n, b), base.inexact || exp.inexact);
        return P.powInt(base, Number(e.n), b);
      }
      if (c !== null) {
        const exact = P.rationalPower(c, e, base.inexact || exp.inexact, b);
        if (exact) return exact;
      }
    }
    if (c !== null && c.n === 0n) return P.constant(ZERO);
    if (isE(base)) return P.fromAtom(P.atom('fn', 'exp', [exp]));
    return P.fromAtom(P.atom('pow', 'pow', [base, exp]));
  }

  private func(name: string, arg: P.Poly, base?: P.Poly): P.Poly {
    const c = P.constantValue(arg);
    if (c !== null && !arg.inexact) {
      if (name === 'abs') return P.constant(qAbs(c));
      if (name === 'floor' || name === 'ceil') return P.constant(q(floorDiv(c, name === 'ceil')));
    }
    if (name === 'exp') return this.power(P.fromAtom(P.atom('e', 'e')), arg);
    if (name === 'ln' && isE(arg)) return P.ONE_POLY;
    const args = base ? [arg, base] : [arg];
    return P.fromAtom(P.atom('fn', name === 'ln' ? 'log' : name, args));
  }
}

const CONST_KEYS: Record<'pi' | 'e' | 'i' | 'inf', string> = { pi: 'π', e: 'e', i: 'i', inf: '∞' };

const TRIG = new Set(['sin', 'cos', 'tan', 'cot', 'sec', 'csc']);

function degreesToRadians(node: Node): Node {
  if (node.k === 'degree') {
    const radian: Node = { k: 'div', num: { k: 'const', name: 'pi' }, den: { k: 'num', value: qInt(180), decimal: false } };
    return { k: 'mul', factors: [degreesToRadians(node.arg), radian] };
  }
  return mapChildren(node, degreesToRadians);
}

const INEQUALITIES: ReadonlySet<RelOp> = new Set<RelOp>(['<', '<=', '>', '>=', '!=']);

/**
 * Relations joined by and/or/commas, when at least one is an inequality: `and` binds tighter than
 * `or` and commas. Lists of equations (`x = 1, y = 2`) stay lists of answers.
 */
function logicOf(items: Value[], joins: Join[]): Value | null {
  if (items.length < 2 || !items.every((v) => v.t === 'rel')) return null;
  if (!items.some((v) => v.t === 'rel' && v.ops.some((o) => INEQUALITIES.has(o)))) return null;
  const groups: Value[][] = [[items[0] as Value]];
  let explicitOr = false;
  for (let i = 1; i < items.length; i++) {
    const join = joins[i - 1] ?? ',';
    if (join === 'and') (groups[groups.length - 1] as Value[]).push(items[i] as Value);
    else {
      if (join === 'or') explicitOr = true;
      groups.push([items[i] as Value]);
    }
  }
  const parts = groups.map((g): Value => (g.length === 1 ? (g[0] as Value) : { t: 'logic', op: 'and', items: g }));
  if (parts.length === 1) return parts[0] as Value;
  return { t: 'logic', op: explicitOr ? 'or' : 'list', items: parts };
}

function isE(p: P.Poly): boolean {
  const [t] = p.terms;
  return p.terms.length === 1 && t !== undefined && t.coef.n === 1n && t.coef.d === 1n && t.factors.length === 1 && t.factors[0]?.[0].kind === 'e' && t.factors[0][1] === 1;
}

function floorDiv(c: Q, ceil: boolean): bigint {
  const f = c.n >= 0n ? c.n / c.d : -((-c.n + c.d - 1n) / c.d);
  return ceil && f * c.d !== c.n ? f + 1n : f;
}

function opaqueAtom(name: string, args: Value[]): P.Atom {
  const polys = args.map((a) => (a.t === 'scalar' ? a.p : P.fromAtom(P.atom('opaque', show(a)))));
  return P.atom('opaque', name, polys);
}

function mapScalars(v: Value, f: (p: P.Poly) => P.Poly): Value {
  if (v.t === 'scalar') return scalar(f(v.p));
  if (v.t === 'matrix') return { t: 'matrix', rows: v.rows.map((r) => r.map((cell) => mapScalars(cell, f))) };
  throw new NotAValue(`arithmetic on a ${v.t}`);
}

function combine(a: Value, b: Value, op: 'add' | 'mul', budget: Budget): Value {
  if (a.t === 'scalar' && b.t === 'scalar') {
    const extended = op === 'add' ? extAdd(a.p, b.p) : extMul(a.p, b.p);
    if (extended) return scalar(extended);
    return scalar(op === 'add' ? P.add(a.p, b.p, budget) : P.mul(a.p, b.p, budget));
  }
  if (op === 'mul' && a.t === 'scalar') return mapScalars(b, (p) => P.mul(a.p, p, budget));
  if (op === 'mul' && b.t === 'scalar') return mapScalars(a, (p) => P.mul(p, b.p, budget));
  if (a.t === 'matrix' && b.t === 'matrix') {
    if (op === 'add') {
      if (a.rows.length !== b.rows.length || a.rows[0]?.length !== b.rows[0]?.length) throw new NotAValue('matrix sizes differ');
      return { t: 'matrix', rows: a.rows.map((r, i) => r.map((cell, j) => combine(cell, (b.rows[i] as Value[])[j] as Value, 'add', budget))) };
    }
    const inner = a.rows[0]?.length ?? 0;
    if (inner !== b.rows.length) throw new NotAValue('matrix sizes do not multiply');
    const width = b.rows[0]?.length ?? 0;
    const rows: Value[][] = a.rows.map((r) =>
      Array.from({ length: width }, (_, j) => {
        let acc = P.constant(ZERO);
        for (let k = 0; k < inner; k++) {
          const x = r[k];
          const y = b.rows[k]?.[j];
          if (x?.t !== 'scalar' || y?.t !== 'scalar') throw new NotAValue('matrix of non-numbers');
          acc = P.add(acc, P.mul(x.p, y.p, budget), budget);
        }
        return scalar(acc) as Value;
      }),
    );
    return { t: 'matrix', rows };
  }
  throw new NotAValue(`cannot ${op} a ${a.t} and a ${b.t}`);
}

function isConstantValue(v: Value): boolean {
  if (v.t !== 'scalar') return false;
  for (const a of P.atomsOf(v.p).values()) if (a.kind === 'sym' || a.kind === 'opaque') return false;
  return true;
}

function flattenList(items: Value[]): Value {
  const out: Value[] = [];
  for (const item of items) {
    if (item.t === 'list') out.push(...item.items);
    else out.push(item);
  }
  return out.length === 1 ? (out[0] as Value) : { t: 'list', items: out };
}

function countPm(node: Node): number {
  switch (node.k) {
    case 'pm':
      return 1 + countPm(node.right) + (node.left ? countPm(node.left) : 0);
    case 'list':
    case 'set':
      return 0;
    default: {
      let n = 0;
      for (const child of children(node)) n += countPm(child);
      return n;
    }
  }
}

/** `a \pm b` is two answers; k occurrences are 2^k, refused beyond a handful. */
function expandPm(node: Node, budget: Budget): Node[] {
  const k = countPm(node);
  if (k === 0) return [node];
  if (k > 4) throw new TooComplex('maxItems');
  const out: Node[] = [];
  for (let mask = 0; mask < 1 << k; mask++) {
    let index = 0;
    const pick = (n: Node): Node => {
      if (n.k === 'pm') {
        const sign = (mask >> index++) & 1;
        const left = n.left ? pick(n.left) : null;
        const right = pick(n.right);
        const signed: Node = sign ? { k: 'neg', arg: right } : right;
        return left ? { k: 'add', terms: [left, signed] } : signed;
      }
      if (n.k === 'list' || n.k === 'set') return n;
      return mapChildren(n, pick);
    };
    out.push(pick(node));
  }
  budget.checkItems(out.length);
  return out;
}

function children(node: Node): Node[] {
  switch (node.k) {
    case 'add':
      return node.terms;
    case 'mul':
      return node.factors;
    case 'neg':
    case 'percent':
    case 'degree':
    case 'factorial':
      return [node.arg];
    case 'div':
      return [node.num, node.den];
    case 'pow':
      return [node.base, node.exp];
    case 'root':
      return [node.arg, node.index];
    case 'fn':
      return node.base ? [node.arg, node.base] : [node.arg];
    case 'apply':
    case 'opaque':
      return node.args;
    case 'binom':
      return [node.n, node.r];
    case 'tuple':
    case 'ratio':
    case 'rel':
      return node.items;
    case 'interval':
      return [node.lo, node.hi];
    case 'union':
      return node.parts;
    case 'setop':
      return [node.left, node.right];
    case 'matrix':
      return node.rows.flat();
    default:
      return [];
  }
}

function mapChildren(node: Node, f: (n: Node) => Node): Node {
  switch (node.k) {
    case 'add':
      return { ...node, terms: node.terms.map(f) };
    case 'mul':
      return { ...node, factors: node.factors.map(f) };
    case 'neg':
    case 'percent':
    case 'degree':
    case 'factorial':
      return { ...node, arg: f(node.arg) };
    case 'div':
      return { ...node, num: f(node.num), den: f(node.den) };
    case 'pow':
      return { ...node, base: f(node.base), exp: f(node.exp) };
    case 'root':
      return { ...node, arg: f(node.arg), index: f(node.index) };
    case 'fn':
      return node.base ? { ...node, arg: f(node.arg), base: f(node.base) } : { ...node, arg: f(node.arg) };
    case 'apply':
    case 'opaque':
      return { ...node, args: node.args.map(f) };
    case 'binom':
      return { ...node, n: f(node.n), r: f(node.r) };
    case 'tuple':
    case 'ratio':
      return { ...node, items: node.items.map(f) };
    case 'rel':
      return { ...node, items: node.items.map(f) };
    case 'interval':
      return { ...node, lo: f(node.lo), hi: f(node.hi) };
    case 'union':
      return { ...node, parts: node.parts.map(f) };
    case 'setop':
      return { ...node, left: f(node.left), right: f(node.right) };
    case 'matrix':
      return { ...node, rows: node.rows.map((r) => r.map(f)) };
    default:
      return node;
  }
}

/** The letters of a bare word answer (`odd` parses as o·d·d), or null when it is not one. */
function spell(node: Node): string | null {
  switch (node.k) {
    case 'sym':
      return /^[A-Za-z]$/.test(node.name) ? node.name : null;
    case 'const':
      return node.name === 'e' || node.name === 'i' ? node.name : null;
    case 'mul': {
      let out = '';
      for (const f of node.factors) {
        const s = spell(f);
        if (s === null) return null;
        out += s;
      }
      return out;
    }
    default:
      return null;
  }
}

export function canonicalize(node: Node, budget: Budget, options: CanonicalOptions): Value {
  try {
    return new Canonicalizer(budget, options).item(node);
  } catch (error) {
    if (error instanceof P.DivisionByZero) throw new NotAValue('division by zero');
    throw error;
  }
}

/** A readable rendering of a canonical value, for `details`. */
export function show(v: Value): string {
  switch (v.t) {
    case 'scalar': {
      const base = P.polyKey(v.p);
      return v.marker === 'percent' ? `${P.polyKey(v.alt as P.Poly)}%` : v.marker === 'degree' ? `${base}°` : base;
    }
    case 'tuple':
      return `(${v.items.map(show).join(', ')})`;
    case 'set':
      return `{${v.items.map(show).join(', ')}}`;
    case 'list':
      return v.items.map(show).join(', ');
    case 'interval':
      return `${v.loClosed ? '[' : '('}${show(v.lo)}, ${show(v.hi)}${v.hiClosed ? ']' : ')'}`;
    case 'union':
      return v.parts.map(show).join(' ∪ ');
    case 'setop':
      return `(${show(v.left)} ${v.op === 'cap' ? '∩' : '∖'} ${show(v.right)})`;
    case 'matrix':
      return `[${v.rows.map((r) => r.map(show).join(', ')).join('; ')}]`;
    case 'rel': {
      let out = show(v.items[0] as Value);
      v.ops.forEach((op, i) => (out += ` ${op} ${show(v.items[i + 1] as Value)}`));
      return out;
    }
    case 'ratio':
      return v.items.map(show).join(':');
    case 'logic':
      return v.items.map((i) => (i.t === 'logic' ? `(${show(i)})` : show(i))).join(v.op === 'list' ? ', ' : ` ${v.op} `);
    case 'text':
      return `"${v.text}"`;
    case 'choice':
      return `(${v.letter}) ${show(v.value)}`;
  }
}
