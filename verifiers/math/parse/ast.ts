import type { Q } from '../rational';

export type RelOp = '=' | '<' | '<=' | '>' | '>=' | '!=' | '~=' | 'in';

/** What joins two items of a list: a comma, or the words and/or (`\land`, `\lor`, `\text{ or }`). */
export type Join = ',' | 'and' | 'or';

/** Functions the evaluator knows; any other applied name (`f(x)`, `W(n)`) is an opaque function. */
export const KNOWN_FUNCTIONS = [
  'sin', 'cos', 'tan', 'cot', 'sec', 'csc',
  'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'tanh',
  'ln', 'log', 'exp', 'abs', 'floor', 'ceil',
] as const;
export type KnownFunction = (typeof KNOWN_FUNCTIONS)[number];

/**
 * The typed AST of one answer. Numbers keep whether they were written exactly (integers,
 * fractions) or as a decimal, because a decimal is compared with the label's tolerance.
 */
export type Node =
  | { k: 'num'; value: Q; decimal: boolean }
  | { k: 'sym'; name: string }
  | { k: 'const'; name: 'pi' | 'e' | 'i' | 'inf' }
  | { k: 'add'; terms: Node[] }
  | { k: 'neg'; arg: Node }
  | { k: 'mul'; factors: Node[] }
  | { k: 'div'; num: Node; den: Node }
  | { k: 'pow'; base: Node; exp: Node }
  | { k: 'root'; arg: Node; index: Node }
  | { k: 'fn'; name: KnownFunction; arg: Node; base?: Node }
  | { k: 'apply'; name: string; args: Node[] }
  | { k: 'factorial'; arg: Node }
  | { k: 'binom'; n: Node; r: Node }
  | { k: 'pm'; left: Node | null; right: Node }
  | { k: 'percent'; arg: Node }
  | { k: 'degree'; arg: Node }
  | { k: 'text'; text: string }
  /** A multiple-choice answer with its value: `\textbf{(C) } 18`. */
  | { k: 'choice'; letter: string; value: Node }
  | { k: 'tuple'; items: Node[]; bracket: '(' | '[' | '{' | '<' }
  | { k: 'interval'; lo: Node; hi: Node; loClosed: boolean; hiClosed: boolean }
  | { k: 'set'; items: Node[] }
  | { k: 'union'; parts: Node[] }
  | { k: 'setop'; op: 'cap' | 'minus'; left: Node; right: Node }
  /** `joins[i]` joins `items[i]` and `items[i + 1]`; absent where the list was not written with separators. */
  | { k: 'list'; items: Node[]; joins?: Join[] }
  | { k: 'matrix'; rows: Node[][] }
  | { k: 'rel'; ops: RelOp[]; items: Node[] }
  | { k: 'ratio'; items: Node[] }
  | { k: 'opaque'; name: string; args: Node[] };

/**
 * A side of an equation that names the answer rather than states it (`x`, `f(x)`, `|AB|`,
 * `\frac{NO}{BO}`, `(p, q)`, `S_{MBCN}:S`): no number outside subscripts and no sum. Its
 * other side is the answer, so `k = 1` matches `1` while `2x + z = 1` does not.
 */
export function isNameLike(node: Node): boolean {
  switch (node.k) {
    case 'sym':
      return true;
    case 'const':
      return node.name === 'e' || node.name === 'i';
    case 'apply':
      return true;
    case 'fn':
      return node.name === 'abs' && isNameLike(node.arg);
    case 'mul':
      return node.factors.every(isNameLike);
    case 'div':
      return isNameLike(node.num) && isNameLike(node.den);
    case 'ratio':
    case 'tuple':
      return node.items.every(isNameLike);
    case 'pow':
      return isNameLike(node.base) && node.exp.k === 'sym';
    default:
      return false;
  }
}
