import { TooComplex } from '../budget';
import { q, qFromDecimal, qFromRepeating, qInt, type Q } from '../rational';
import { KNOWN_FUNCTIONS, type Join, type KnownFunction, type Node, type RelOp } from './ast';
import type { Token } from './lexer';

export class ParseError extends Error {}

/** Single letters read as function names when followed by `(`: `f(x)`, `W(n)`; `x(x+1)` stays a product. */
const FUNCTION_LETTERS = new Set(['f', 'g', 'h', 'p', 'q', 'F', 'G', 'H', 'P', 'Q', 'W']);
const MATRIX_ENVS = new Set(['pmatrix', 'bmatrix', 'Bmatrix', 'vmatrix', 'Vmatrix', 'matrix', 'smallmatrix', 'array']);
const ACCENTS = new Set(['overline', 'overrightarrow', 'vec', 'hat', 'bar', 'widehat', 'tilde', 'dot']);
const NAMED_APPLY = new Set(['max', 'min', 'gcd', 'lcm', 'det']);
const BIG_OPERATORS = new Set(['sum', 'prod', 'int', 'lim']);
const KNOWN_FN = new Set<string>(KNOWN_FUNCTIONS);
const INVERSE: Partial<Record<KnownFunction, KnownFunction>> = { sin: 'arcsin', cos: 'arccos', tan: 'arctan' };

/** Closing tokens that end a bracketed list. */
const CLOSERS = new Set([')', ']', '}', '\\}', ')>', 'rfloor', 'rceil', '|', '&', '\\\\']);

const num = (value: Q, decimal = false): Node => ({ k: 'num', value, decimal });

const INFINITY: Node = { k: 'const', name: 'inf' };
/** ℝ, however it is written (`\mathbb{R}`, `\R`, "all real numbers"). */
const REALS: Node = { k: 'interval', lo: { k: 'neg', arg: INFINITY }, hi: INFINITY, loClosed: false, hiClosed: false };

/**
 * A recursive-descent parser for the answer language (precedence from loosest: `;` lists, `,`/and/or
 * lists, relations, `\cup`, ratios `a:b`, sums and `\pm`, products (explicit and implicit),
 * unary signs, postfix `^ ! % ° _`, primaries).
 */
export class Parser {
  private pos = 0;
  private depth = 0;
  private absDepth = 0;

  constructor(
    private readonly toks: Token[],
    private readonly maxDepth: number,
  ) {}

  parseAnswer(): Node {
    if (this.toks.length === 0) throw new ParseError('empty answer');
    const letter = this.choiceLabel();
    const node = this.parseGroups();
    if (this.pos < this.toks.length) throw new ParseError(`unexpected ${describe(this.peek())}`);
    return letter === null ? node : { k: 'choice', letter, value: node };
  }

  /** `\textbf{(C) } 18`, `(C) 18`: a choice label before the value it stands for, consumed. */
  private choiceLabel(): string | null {
    const t = this.peek();
    const letter = this.peek(1);
    let label: string | null = null;
    let width = 0;
    const m = t?.t === 'text' ? /^\s*\(([A-E])\)\s*$/.exec(t.text) : null;
    if (m) [label, width] = [m[1] as string, 1];
    else if (this.isOp('(') && letter?.t === 'id' && /^[A-E]$/.test(letter.name) && this.isOp(')', 2)) [label, width] = [letter.name, 3];
    // A value must follow, not another choice (`(A) and (C)` picks two letters).
    const next = this.peek(width);
    if (label === null || next === undefined || this.isSeparator(next)) return null;
    this.pos += width;
    return label;
  }

  private peek(offset = 0): Token | undefined {
    return this.toks[this.pos + offset];
  }

  private isOp(v: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t !== undefined && t.t === 'op' && t.v === v;
  }

  private expectOp(v: string): void {
    if (!this.isOp(v)) throw new ParseError(`expected ${v}, found ${describe(this.peek())}`);
    this.pos++;
  }

  private enter(): void {
    if (++this.depth > this.maxDepth) throw new TooComplex('maxDepth');
  }

  private leave(): void {
    this.depth--;
  }

  private atCloser(): boolean {
    const t = this.peek();
    if (t === undefined) return true;
    if (t.t === 'env' && !t.begin) return true;
    return t.t === 'op' && CLOSERS.has(t.v) && !(t.v === '|' && this.absDepth === 0);
  }

  private isSeparator(t: Token | undefined): boolean {
    if (t === undefined) return false;
    if (t.t === 'sep') return true;
    if (t.t === 'op' && t.v === ',') return true;
    return t.t === 'text' && /^\s*(?:,\s*)?(?:(?:and|or)\s*)?(?:,\s*)?$/.test(t.text) && t.text.trim() !== '';
  }

  /** `a; b` groups of `,`-lists: `p=5,q=2;p=7,q=2` is two answers of two parts each. */
  private parseGroups(): Node {
    const groups: Node[] = [this.parseList()];
    while (this.isOp(';')) {
      this.pos++;
      if (this.atCloser()) break;
      groups.push(this.parseList());
    }
    if (groups.length === 1) return groups[0] as Node;
    // Each `;`-group is one answer: its `,`-parts stay together and in order.
    return { k: 'list', items: groups.map((g): Node => (g.k === 'list' ? { k: 'tuple', items: g.items, bracket: '{' } : g)) };
  }

  private parseList(): Node {
    const items: Node[] = [];
    const joins: Join[] = [];
    for (;;) {
      let join: Join = ',';
      for (let t = this.peek(); this.isSeparator(t); t = this.peek()) {
        // In `, and` or `, or` the word decides.
        const j = joinOf(t as Token);
        if (j !== ',') join = j;
        this.pos++;
      }
      if (this.atCloser() || this.isOp(';')) break;
      if (items.length > 0) joins.push(join);
      items.push(this.parseRelation());
      if (!this.isSeparator(this.peek())) break;
    }
    if (items.length === 0) throw new ParseError('empty list');
    return items.length === 1 ? (items[0] as Node) : { k: 'list', items, joins };
  }

  private parseRelation(): Node {
    const items = [this.parseUnion()];
    const ops: RelOp[] = [];
    for (let t = this.peek(); t?.t === 'rel'; t = this.peek()) {
      this.pos++;
      ops.push(t.v);
      items.push(this.parseUnion());
    }
    return ops.length === 0 ? (items[0] as Node) : { k: 'rel', ops, items };
  }

  /** `\cup`, `\cap` and `\setminus`, left to right. */
  private parseUnion(): Node {
    let node = this.parseRatio();
    for (;;) {
      if (this.isOp('cup')) {
        this.pos++;
        const right = this.parseRatio();
        node = node.k === 'union' ? { k: 'union', parts: [...node.parts, right] } : { k: 'union', parts: [node, right] };
      } else if (this.isOp('cap') || this.isOp('setminus')) {
        const op = this.isOp('cap') ? 'cap' : 'minus';
        this.pos++;
        node = { k: 'setop', op, left: node, right: this.parseRatio() };
      } else return node;
    }
  }

  private parseRatio(): Node {
    const items = [this.parseAdditive()];
    while (this.isOp(':')) {
      this.pos++;
      items.push(this.parseAdditive());
    }
    return items.length === 1 ? (items[0] as Node) : { k: 'ratio', items };
  }

  private parseAdditive(): Node {
    this.enter();
    const terms: Node[] = [];
    if (this.isOp('pm') || this.isOp('mp')) {
      this.pos++;
      const right = this.parseAdditive();
      this.leave();
      return { k: 'pm', left: null, right };
    }
    terms.push(this.parseTerm());
    for (;;) {
      if (this.isOp('+')) {
        this.pos++;
        terms.push(this.parseTerm());
      } else if (this.isOp('-')) {
        this.pos++;
        terms.push({ k: 'neg', arg: this.parseTerm() });
      } else if (this.isOp('pm') || this.isOp('mp')) {
        this.pos++;
        const left: Node = terms.length === 1 ? (terms[0] as Node) : { k: 'add', terms };
        const right = this.parseAdditive();
        this.leave();
        return { k: 'pm', left, right };
      } else break;
    }
    this.leave();
    return terms.length === 1 ? (terms[0] as Node) : { k: 'add', terms };
  }

  private parseTerm(): Node {
    const factors: Node[] = [];
    let node = this.parseUnary();
    for (;;) {
      if (this.isOp('*')) {
        this.pos++;
        factors.push(node);
        node = this.parseUnary();
      } else if (this.isOp('/')) {
        this.pos++;
        const den = this.parseUnary();
        node = { k: 'div', num: factors.length ? { k: 'mul', factors: [...factors.splice(0), node] } : node, den };
      } else if (this.startsImplicitFactor()) {
        const next = this.parseUnary();
        const mixed = mixedNumber(node, next);
        if (mixed) node = mixed;
        else {
          factors.push(node);
          node = next;
        }
      } else break;
    }
    if (factors.length === 0) return node;
    factors.push(node);
    return { k: 'mul', factors };
  }

  private startsImplicitFactor(): boolean {
    const t = this.peek();
    if (t === undefined) return false;
    switch (t.t) {
      case 'num':
      case 'id':
        return true;
      case 'cmd':
        return t.name !== 'pmod' && t.name !== 'bmod' && t.name !== 'mod' && t.name !== 'choose';
      case 'env':
        return t.begin;
      case 'op':
        return t.v === '(' || t.v === '{' || t.v === '<(' || t.v === 'lfloor' || t.v === 'lceil' || (t.v === '|' && this.absDepth === 0);
      case 'text':
        return !this.isSeparator(t) && !isPercentText(t.text);
      default:
        return false;
    }
  }

  private parseUnary(): Node {
    this.enter();
    let node: Node;
    if (this.isOp('-')) {
      this.pos++;
      node = { k: 'neg', arg: this.parseUnary() };
    } else if (this.isOp('+')) {
      this.pos++;
      node = this.parseUnary();
    } else node = this.parsePostfix();
    this.leave();
    return node;
  }

  private parsePostfix(): Node {
    let node = this.parsePrimary();
    for (;;) {
      const t = this.peek();
      if (t?.t === 'op' && t.v === '^') {
        this.pos++;
        if (this.isOp('circ') || this.isDegreeGroup()) {
          if (this.isOp('circ')) this.pos++;
          node = { k: 'degree', arg: node };
          continue;
        }
        node = { k: 'pow', base: node, exp: this.parseScript() };
      } else if (t?.t === 'op' && t.v === '!') {
        this.pos++;
        node = { k: 'factorial', arg: node };
      } else if (t?.t === 'op' && t.v === '%') {
        this.pos++;
        node = { k: 'percent', arg: node };
      } else if (t?.t === 'text' && isPercentText(t.text)) {
        this.pos++;
        node = { k: 'percent', arg: node };
      } else if (t?.t === 'op' && (t.v === 'degree' || t.v === 'circ')) {
        this.pos++;
        node = { k: 'degree', arg: node };
      } else if (t?.t === 'op' && t.v === "'") {
        this.pos++;
        if (node.k === 'sym') node = { k: 'sym', name: `${node.name}'` };
      } else if (t?.t === 'op' && t.v === '_') {
        this.pos++;
        node = subscript(node, this.parseScript());
      } else if (t?.t === 'cmd' && (t.name === 'pmod' || t.name === 'bmod')) {
        // `9 \pmod{11}`: the modulus qualifies the answer, it is not part of it.
        this.pos++;
        this.parseScript();
      } else if (t?.t === 'text' && !this.isSeparator(t) && isUnitText(t.text) && node.k !== 'text') {
        // A unit after a quantity (`10\text{ cm}`, `15\mbox{ cm}^2`, `50\text{ km}/\text{h}`) is dropped with its power.
        this.pos++;
        this.skipUnitTail();
      } else if (t?.t === 'id' && node.k === 'num' && isUnitWordAhead(this.toks, this.pos)) {
        this.pos = skipUnitWord(this.toks, this.pos);
      } else break;
    }
    return node;
  }

  /** What may follow a dropped unit: its power, and a per-unit (`/\text{h}`, `/\text{s}^2`). */
  private skipUnitTail(): void {
    for (;;) {
      if (this.isOp('^')) {
        this.pos++;
        this.parseScript();
        continue;
      }
      const next = this.peek(1);
      if (this.isOp('/') && next?.t === 'text' && isUnitText(next.text) && next.text.trim() !== '') {
        this.pos += 2;
        continue;
      }
      return;
    }
  }

  private isDegreeGroup(): boolean {
    const a = this.peek();
    const b = this.peek(1);
    const c = this.peek(2);
    if (a?.t === 'op' && a.v === '{' && b?.t === 'op' && b.v === 'circ' && c?.t === 'op' && c.v === '}') {
      this.pos += 3;
      return true;
    }
    return false;
  }

  /** The argument of `^`, `_`, `\frac`, `\sqrt`: a braced group or a single token (`\frac12`, `x^2`). */
  private parseScript(singleDigit = false): Node {
    const t = this.peek();
    if (t === undefined) throw new ParseError('missing argument');
    if (t.t === 'op' && t.v === '{') {
      this.pos++;
      if (this.isOp('}')) {
        this.pos++;
        return { k: 'text', text: '' };
      }
      const inner = this.parseGroups();
      this.expectOp('}');
      return inner;
    }
    if (t.t === 'num') {
      if (singleDigit && t.text.length > 1 && /^\d+$/.test(t.text)) {
        // `\frac12`: one digit per argument; the rest stays in the stream.
        this.toks.splice(this.pos, 1, { t: 'num', text: t.text.slice(0, 1) }, { t: 'num', text: t.text.slice(1) });
      }
      return this.parsePrimary();
    }
    if (t.t === 'op' && (t.v === '-' || t.v === '+')) return this.parseUnary();
    if (t.t === 'op' && t.v === '(') return this.parsePrimary();
    if (t.t === 'id' || t.t === 'cmd' || t.t === 'text') return this.parsePrimary();
    throw new ParseError(`unexpected ${describe(t)} as an argument`);
  }

  private parsePrimary(): Node {
    this.enter();
    const node = this.primary();
    this.leave();
    return node;
  }

  private primary(): Node {
    const t = this.peek();
    if (t === undefined) throw new ParseError('unexpected end of answer');
    this.pos++;
    switch (t.t) {
      case 'num':
        // A repeating decimal is an exact rational, not a rounded decimal.
        if (t.rep !== undefined) return num(qFromRepeating(t.text, t.rep));
        return t.text.includes('.') ? num(qFromDecimal(t.text), true) : num(qInt(BigInt(t.text)));
      case 'id':
        return this.identifier(t.name);
      case 'text':
        return textNode(t.text);
      case 'cmd':
        return this.command(t.name);
      case 'env':
        if (!t.begin) throw new ParseError(`unexpected \\end{${t.name}}`);
        return this.environment(t.name);
      case 'op':
        return this.bracketed(t.v);
      case 'rel':
      case 'sep':
        throw new ParseError(`unexpected ${describe(t)}`);
    }
  }

  private identifier(name: string): Node {
    if (name === 'e') return { k: 'const', name: 'e' };
    if (name === 'i') return { k: 'const', name: 'i' };
    if (FUNCTION_LETTERS.has(name) && this.isOp('(')) {
      this.pos++;
      const args = this.parseArgs(')');
      return { k: 'apply', name, args };
    }
    return { k: 'sym', name };
  }

  private parseArgs(close: string): Node[] {
    if (this.isOp(close)) {
      this.pos++;
      return [];
    }
    const inner = this.parseGroups();
    this.expectOp(close);
    return inner.k === 'list' ? inner.items : [inner];
  }

  private command(name: string): Node {
    if (name === 'frac') {
      const a = this.parseScript(true);
      const b = this.parseScript(true);
      return { k: 'div', num: a, den: b };
    }
    if (name === 'sqrt') {
      let index: Node = num(qInt(2));
      if (this.isOp('[')) {
        this.pos++;
        index = this.parseAdditive();
        this.expectOp(']');
      }
      return { k: 'root', arg: this.parseScript(true), index };
    }
    if (name === 'binom') return { k: 'binom', n: this.parseScript(true), r: this.parseScript(true) };
    if (name === 'pi') return { k: 'const', name: 'pi' };
    if (name === 'infty') return { k: 'const', name: 'inf' };
    if (name === 'emptyset') return { k: 'set', items: [] };
    if (name === 'reals') return REALS;
    if (KNOWN_FN.has(name)) return this.func(name as KnownFunction);
    if (ACCENTS.has(name)) return { k: 'sym', name: `${name}(${symbolName(this.parseScript())})` };
    if (NAMED_APPLY.has(name)) {
      if (this.isOp('(')) {
        this.pos++;
        return { k: 'apply', name, args: this.parseArgs(')') };
      }
      return { k: 'apply', name, args: [this.parsePostfix()] };
    }
    if (BIG_OPERATORS.has(name)) return this.bigOperator(name);
    if (name === 'equiv' || name === 'cong' || name === 'sim') throw new ParseError(`\\${name} is not an answer relation`);
    throw new ParseError(`unsupported command \\${name}`);
  }

  private func(name: KnownFunction): Node {
    let base: Node | undefined;
    let power: Node | undefined;
    for (;;) {
      if (this.isOp('_')) {
        this.pos++;
        base = this.parseScript();
      } else if (this.isOp('^')) {
        this.pos++;
        power = this.parseScript();
      } else break;
    }
    let fn: KnownFunction = name;
    if (power && power.k === 'neg' && power.arg.k === 'num' && power.arg.value.n === 1n && INVERSE[name]) {
      fn = INVERSE[name] as KnownFunction;
      power = undefined;
    }
    let arg: Node;
    if (this.isOp('(')) {
      this.pos++;
      arg = this.parseGroups();
      this.expectOp(')');
    } else {
      // `\sin 2x`, `\log 8`, `\sin b \cos a`: the argument runs over plain factors up to the next function.
      const factors = [this.parseUnary()];
      while (this.peek()?.t === 'num' || this.peek()?.t === 'id') factors.push(this.parsePostfix());
      arg = factors.length === 1 ? (factors[0] as Node) : { k: 'mul', factors };
    }
    const applied: Node = base ? { k: 'fn', name: fn, arg, base } : { k: 'fn', name: fn, arg };
    return power ? { k: 'pow', base: applied, exp: power } : applied;
  }

  private bigOperator(name: string): Node {
    const args: Node[] = [];
    for (;;) {
      if (this.isOp('_') || this.isOp('^')) {
        this.pos++;
        args.push(this.parseScript());
      } else break;
    }
    args.push(this.parseTerm());
    return { k: 'opaque', name, args };
  }

  private environment(name: string): Node {
    const rows: Node[][] = [[]];
    for (;;) {
      const t = this.peek();
      if (t === undefined) throw new ParseError(`unterminated \\begin{${name}}`);
      if (t.t === 'env' && !t.begin) {
        this.pos++;
        break;
      }
      if (t.t === 'op' && t.v === '&') {
        this.pos++;
        continue;
      }
      if (t.t === 'op' && t.v === '\\\\') {
        this.pos++;
        rows.push([]);
        continue;
      }
      (rows[rows.length - 1] as Node[]).push(this.parseRelation());
    }
    const filled = rows.filter((r) => r.length > 0);
    if (!MATRIX_ENVS.has(name)) {
      const items = filled.flat();
      if (items.length === 0) throw new ParseError(`empty \\begin{${name}}`);
      return items.length === 1 ? (items[0] as Node) : { k: 'list', items };
    }
    if (filled.length === 0) throw new ParseError('empty matrix');
    const width = (filled[0] as Node[]).length;
    if (filled.some((r) => r.length !== width)) throw new ParseError('ragged matrix');
    const matrix: Node = { k: 'matrix', rows: filled };
    return name === 'vmatrix' ? { k: 'apply', name: 'det', args: [matrix] } : matrix;
  }

  /**
   * Set-builder notation after `\{`: `\{x \mid x < 2 \text{ or } x > 3\}`, `\{x : 1 \le x \le 3\}`,
   * `\{x \in \mathbb{R} : x < 2\}` — the conditions themselves, within the domain when one is given.
   */
  private setBuilder(): Node | null {
    const start = this.pos;
    if (this.peek()?.t !== 'id') return null;
    this.pos++;
    let domain: Node | null = null;
    const rel = this.peek();
    if (rel?.t === 'rel' && rel.v === 'in') {
      this.pos++;
      domain = this.parseAdditive();
    }
    if (!this.isOp('|') && !this.isOp(':')) {
      this.pos = start;
      return null;
    }
    this.pos++;
    const conditions = this.parseList();
    this.expectOp('\\}');
    if (domain === null || domain === REALS) return conditions;
    return { k: 'setop', op: 'cap', left: domain, right: conditions };
  }

  private bracketed(open: string): Node {
    switch (open) {
      case '(':
      case '[': {
        if (this.isOp(')') || this.isOp(']')) throw new ParseError('empty brackets');
        const inner = this.parseGroups();
        const close = this.peek();
        if (close?.t !== 'op' || (close.v !== ')' && close.v !== ']')) throw new ParseError(`unclosed ${open}`);
        this.pos++;
        const items = inner.k === 'list' ? inner.items : [inner];
        if (items.length === 2 && (open === '[' || close.v === ']')) {
          return { k: 'interval', lo: items[0] as Node, hi: items[1] as Node, loClosed: open === '[', hiClosed: close.v === ']' };
        }
        if (items.length === 1) {
          if ((open === '(') !== (close.v === ')')) throw new ParseError('mismatched brackets');
          return items[0] as Node;
        }
        return { k: 'tuple', items, bracket: open === '(' ? '(' : '[' };
      }
      case '{': {
        if (this.isOp('}')) {
          this.pos++;
          return { k: 'text', text: '' };
        }
        const inner = this.parseGroups();
        const t = this.peek();
        if (t?.t === 'cmd' && t.name === 'choose') {
          // `{n \choose k}`
          this.pos++;
          const r = this.parseGroups();
          this.expectOp('}');
          return { k: 'binom', n: inner, r };
        }
        this.expectOp('}');
        return inner.k === 'list' ? { k: 'tuple', items: inner.items, bracket: '{' } : inner;
      }
      case '\\{': {
        const builder = this.setBuilder();
        if (builder) return builder;
        const items = this.isOp('\\}') ? [] : listItems(this.parseGroups());
        this.expectOp('\\}');
        return { k: 'set', items };
      }
      case '<(': {
        const items = listItems(this.parseGroups());
        this.expectOp(')>');
        return { k: 'tuple', items, bracket: '<' };
      }
      case '|': {
        this.absDepth++;
        const inner = this.parseAdditive();
        this.absDepth--;
        this.expectOp('|');
        return { k: 'fn', name: 'abs', arg: inner };
      }
      case 'lfloor':
      case 'lceil': {
        const inner = this.parseAdditive();
        this.expectOp(open === 'lfloor' ? 'rfloor' : 'rceil');
        return { k: 'fn', name: open === 'lfloor' ? 'floor' : 'ceil', arg: inner };
      }
      default:
        throw new ParseError(`unexpected ${open}`);
    }
  }
}

function listItems(node: Node): Node[] {
  return node.k === 'list' ? node.items : [node];
}

function describe(t: Token | undefined): string {
  if (t === undefined) return 'end of answer';
  switch (t.t) {
    case 'num':
      return t.text;
    case 'id':
      return t.name;
    case 'cmd':
      return `\\${t.name}`;
    case 'text':
      return `\\text{${t.text}}`;
    case 'op':
    case 'rel':
      return t.v;
    case 'sep':
      return 'and/or';
    case 'env':
      return `\\${t.begin ? 'begin' : 'end'}{${t.name}}`;
  }
}

function joinOf(t: Token): Join {
  if (t.t === 'sep') return t.v;
  if (t.t === 'text') {
    const word = /\b(and|or)\b/.exec(t.text);
    if (word) return word[1] as Join;
  }
  return ',';
}

function isPercentText(text: string): boolean {
  return /^\s*(?:%|percent|percentage|pct)\s*$/i.test(text);
}

/** Text after a quantity that reads as a unit or a word of prose: letters, spaces, `.`, `/`, `^`. */
function isUnitText(text: string): boolean {
  return /^[\s\p{L}./²³°-]*$/u.test(text);
}

const UNIT_WORDS = new Set([
  'cm', 'mm', 'km', 'kg', 'mg', 'ml', 'ft', 'yd', 'mi', 'in', 'hr', 'hrs', 'min', 'sec', 'mph', 'kmh', 'sq', 'units',
  'unit', 'meter', 'meters', 'metre', 'metres', 'mile', 'miles', 'inch', 'inches', 'feet', 'foot', 'yard', 'yards',
  'gram', 'grams', 'liter', 'liters', 'litre', 'litres', 'hour', 'hours', 'minute', 'minutes', 'second', 'seconds',
  'day', 'days', 'week', 'weeks', 'month', 'months', 'year', 'years', 'dollar', 'dollars', 'cent', 'cents', 'yuan',
  'degree', 'degrees', 'square', 'cubic', 'people', 'students', 'ways', 'times', 'points', 'apples',
]);

/** A run of single-letter tokens after a number that spells a unit (`35 cm` lexes as `35 c m`). */
function unitWordEnd(toks: Token[], pos: number): number {
  let word = '';
  let j = pos;
  while (toks[j]?.t === 'id' && (toks[j] as { name: string }).name.length === 1) {
    word += (toks[j] as { name: string }).name;
    j++;
    if (UNIT_WORDS.has(word) && toks[j]?.t !== 'id') return j;
  }
  return -1;
}

function isUnitWordAhead(toks: Token[], pos: number): boolean {
  return unitWordEnd(toks, pos) > 0;
}

function skipUnitWord(toks: Token[], pos: number): number {
  let end = unitWordEnd(toks, pos);
  if (toks[end]?.t === 'op' && (toks[end] as { v: string }).v === '^' && toks[end + 1]?.t === 'num') end += 2;
  return end;
}

/** Zero to twenty and the round tens, the numbers answers write as words. */
const NUMBER_WORDS = new Map<string, number>(
  [
    'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve',
    'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty',
  ]
    .map((w, i): [string, number] => [w, i])
    .concat(['thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'].map((w, i): [string, number] => [w, 30 + 10 * i])),
);

function textNode(raw: string): Node {
  const text = raw.trim();
  if (text === '') return { k: 'text', text: '' };
  // `\text{5 apples}`: a number with its unit or noun is the number (not `3 or more`, `5 and 6`).
  const counted = /^(-?\d+(?:\.\d+)?)\s+\p{L}[\p{L} ]*$/u.exec(text);
  if (counted && !/\b(?:and|or|more|less|than|at|least|most|per|each)\b/i.test(text)) return textNode(counted[1] as string);
  if (/^-?\d+(?:\.\d+)?$/.test(text)) {
    const value = text.includes('.') ? num(qFromDecimal(text.replace('-', '')), true) : num(qInt(BigInt(text.replace('-', ''))));
    return text.startsWith('-') ? { k: 'neg', arg: value } : value;
  }
  if (/^[A-Za-z]$/.test(text)) return text === 'e' ? { k: 'const', name: 'e' } : { k: 'sym', name: text };
  // `\text{five}`: a number written as a word is the number.
  const word = NUMBER_WORDS.get(text.toLowerCase().replace(/\.$/, ''));
  if (word !== undefined) return num(qInt(word));
  if (/^(?:infinity|infinite|inf)$/i.test(text)) return INFINITY;
  if (/^(?:(?:the )?(?:set of )?all reals?(?: numbers)?|all real values(?: of x)?|real numbers)$/i.test(text)) return REALS;
  if (/^(?:(?:there is |there are )?no (?:real )?(?:solutions?|roots?|values?)|the empty set|empty set)$/i.test(text)) return { k: 'set', items: [] };
  return { k: 'text', text };
}

/** `3\frac{1}{2}` is the mixed number 7/2 (and `-3\frac{1}{2}` is -7/2) when both parts are plain integers. */
function mixedNumber(whole: Node, next: Node): Node | null {
  if (whole.k === 'neg') {
    const positive = mixedNumber(whole.arg, next);
    return positive ? { k: 'neg', arg: positive } : null;
  }
  if (whole.k !== 'num' || whole.decimal || whole.value.d !== 1n || whole.value.n < 0n) return null;
  if (next.k !== 'div' || next.num.k !== 'num' || next.den.k !== 'num') return null;
  if (next.num.decimal || next.den.decimal || next.num.value.d !== 1n || next.den.value.d !== 1n) return null;
  if (next.den.value.n === 0n) return null;
  return { k: 'add', terms: [whole, { k: 'div', num: next.num, den: next.den }] };
}

const DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';

/** `x_1` → symbol `x_1`; `204_5` → the base-5 numeral (value 54). */
function subscript(base: Node, sub: Node): Node {
  if (base.k === 'num' && !base.decimal && sub.k === 'num' && !sub.decimal) {
    const radix = Number(sub.value.n);
    const digits = base.value.n.toString();
    if (radix >= 2 && radix <= 36 && [...digits].every((d) => DIGITS.indexOf(d) < radix)) {
      let value = 0n;
      for (const d of digits) value = value * BigInt(radix) + BigInt(DIGITS.indexOf(d));
      return num(q(value));
    }
    if (radix === 10) return base;
    throw new ParseError(`digits ${digits} are not a base-${radix} numeral`);
  }
  if (base.k === 'sym' || base.k === 'const') return { k: 'sym', name: `${symbolName(base)}_${symbolName(sub)}` };
  if (base.k === 'apply') return { k: 'apply', name: `${base.name}_${symbolName(sub)}`, args: base.args };
  return base;
}

/** A stable name for a node used as part of a symbol (`a_{n+1}`, `\overline{AB}`). */
export function symbolName(node: Node): string {
  switch (node.k) {
    case 'num':
      return node.value.d === 1n ? node.value.n.toString() : `${node.value.n}/${node.value.d}`;
    case 'sym':
      return node.name;
    case 'const':
      return node.name;
    case 'text':
      return node.text.trim();
    case 'mul':
      return node.factors.map(symbolName).join('');
    case 'add':
      return node.terms.map(symbolName).join('+').replace(/\+-/g, '-');
    case 'neg':
      return `-${symbolName(node.arg)}`;
    default:
      // Any other node (`a_{n^2}`, `x_{1/2}`) as its JSON, numbers' bigints written out: plain
      // JSON.stringify throws on a bigint, which made such a subscript ABORT the sample.
      return JSON.stringify(node, (_key, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
  }
}
