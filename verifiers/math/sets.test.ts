import { Budget, DEFAULT_LIMITS } from './budget';
import { canonicalize, show, type Value } from './canonical';
import { parseAnswer } from './parse';
import { polyKey } from './poly';
import { flipOp, SetAlgebra, type Span } from './sets';

function value(text: string): Value {
  const r = parseAnswer(text, { plain: false }, DEFAULT_LIMITS);
  if (!r.ok) throw new Error(`${text}: ${r.error}`);
  return canonicalize(r.node, new Budget(), { strict: true });
}

// Exact equality of endpoints: the comparer passes its own (with the label's tolerance).
const algebra = () => new SetAlgebra((a, b) => polyKey(a.p) === polyKey(b.p), new Budget());
const spans = (text: string, lists = false) => algebra().spans(value(text), lists);
/** A span list written as intervals, to compare by eye. */
const written = (s: Span[] | null) => s?.map((x) => `${x.loClosed ? '[' : '('}${show(x.lo)}, ${show(x.hi)}${x.hiClosed ? ']' : ')'}`).join(' ∪ ') ?? null;

describe('the set algebra of answers about the real line', () => {
  it('gives every spelling of one set one form', () => {
    const forms = ['(-\\infty, 2] \\cup (3, \\infty)', 'x \\le 2 \\text{ or } x > 3', 'x \\le 2 \\lor x > 3', '(3, \\infty) \\cup (-\\infty, 2]'];
    const [first, ...rest] = forms.map((f) => spans(f));
    expect(written(first!)).toBe('(-∞, 2] ∪ (3, ∞)');
    for (const other of rest) expect(algebra().equal(first!, other!)).toBe(true);
  });

  it('reads a chain and an `and` as the intersection', () => {
    expect(written(spans('1 < x < 3'))).toBe('(1, 3)');
    expect(written(spans('x > 1 \\land x \\le 3'))).toBe('(1, 3]');
  });

  it('reads conditions joined by commas as pieces when disjoint and as constraints when they overlap', () => {
    expect(written(spans('x < 2, x > 3'))).toBe('(-∞, 2) ∪ (3, ∞)');
    expect(written(spans('x > 1, x < 3'))).toBe('(1, 3)');
  });

  it('merges spans that touch at an endpoint one of them includes, and only those', () => {
    expect(written(spans('[0, 1) \\cup [1, 2]'))).toBe('[0, 2]');
    expect(written(spans('[0, 1) \\cup (1, 2]'))).toBe('[0, 1) ∪ (1, 2]');
  });

  it('takes the complement and set differences, never including an infinite endpoint', () => {
    const a = algebra();
    expect(written(a.complement(spans('[0, 1)')!))).toBe('(-∞, 0) ∪ [1, ∞)');
    expect(written(spans('[0, 5] \\setminus (1, 2)'))).toBe('[0, 1] ∪ [2, 5]');
    expect(written(spans('[-\\infty, 0]'))).toBe('(-∞, 0]');
  });

  it('has no form for what is not a subset of the line: two unknowns, a triple', () => {
    expect(spans('x > 0 \\land y > 0')).toBeNull();
    expect(spans('(1, 2, 3)')).toBeNull();
  });

  it('reads a list of intervals as their union only when asked', () => {
    expect(spans('(0, 1), (2, 3)')).toBeNull();
    expect(written(spans('(0, 1), (2, 3)', true))).toBe('(0, 1) ∪ (2, 3)');
  });
});

describe('flipOp', () => {
  it('turns an order around its sides and leaves a symmetric relation as it is', () => {
    expect(['<', '>', '<=', '>=', '=', '!='].map((op) => flipOp(op as Parameters<typeof flipOp>[0]))).toEqual(['>', '<', '>=', '<=', '=', '!=']);
  });
});
