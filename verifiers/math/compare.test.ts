import { Budget, DEFAULT_LIMITS } from './budget';
import { canonicalize } from './canonical';
import { Comparer } from './compare';
import { parseAnswer } from './parse';

function rule(gold: string, pred: string, precision = 6, strict = true): string | null {
  const value = (text: string) => {
    const r = parseAnswer(text, { plain: false }, DEFAULT_LIMITS);
    if (!r.ok) throw new Error(`${text}: ${r.error}`);
    return canonicalize(r.node, new Budget(), { strict });
  };
  return new Comparer({ precision }, new Budget()).compare(value(gold), value(pred));
}
const same = (gold: string, pred: string, precision = 6) => expect(rule(gold, pred, precision)).not.toBeNull();
const differ = (gold: string, pred: string, precision = 6) => expect(rule(gold, pred, precision)).toBeNull();

describe('math comparison: near-misses are false', () => {
  it.each([
    ['\\frac{1}{2}', '\\frac{1}{3}'],
    ['(1,2)', '[1,2]'],
    ['\\{1,2\\}', '(1,2)'],
    ['x+1', 'x-1'],
    ['(3,1)', '{1,3}'],
    ['4', '4\\sqrt{2}'],
    ['2', '\\frac{1+\\sqrt{5}}{2}'],
    ['[0,1)', '(0,1)'],
    ['\\pm 2021', '2021'],
    ['12:00', '1:00'],
    ['x > 5', 'x < 5'],
    ['1 - \\frac{1}{e}', '1 + \\frac{1}{e}'],
    ['\\frac{1}{3}', '0.3333'],
  ])('%s vs %s', (gold, pred) => differ(gold, pred));
});

describe('math comparison: numbers', () => {
  it('is exact for rationals and uses the precision for decimals', () => {
    expect(rule('\\frac{64}{25}', '2.56')).toBe('exact');
    same('\\frac{1}{12}', '0.0833333333333333');
    same('\\frac{1}{3}', '0.3333', 4);
    differ('\\frac{1}{3}', '0.3333', 6);
    same('\\sqrt{17}', '4.123105625617661', 5);
    differ('10^{20}', '10^{20}+1');
  });

  it('reads a gold percentage p% as p/100, as p% or as the bare p', () => {
    same('28\\%', '0.28');
    same('28\\%', '\\frac{7}{25}');
    same('28\\%', '28\\%');
    same('28\\%', '28 percent');
    expect(rule('20\\%', '20')).toBe('percent_as_number');
    differ('20\\%', '0.2\\%');
    differ('20\\%', '2');
    differ('20\\%', '0.02');
  });

  it('reads a gold q without % as q or (100q)%, never as q%', () => {
    expect(rule('0.2', '20\\%')).toBe('exact');
    same('\\frac{1}{2}', '50\\%');
    differ('0.2', '0.2\\%');
    differ('20', '20\\%');
    differ('0.2', '20');
    differ('\\frac{1}{2}', '\\frac{1}{2}\\%');
  });

  it('reads degrees as the number or as radians', () => {
    same('90^\\circ', '90');
    expect(rule('90^\\circ', '\\frac{\\pi}{2}')).toBe('degrees_as_radians');
  });
});

describe('math comparison: expressions', () => {
  it('matches canonical forms first, then a deterministic randomized check', () => {
    expect(rule('x^2 - 9', '(x-3)(x+3)')).toBe('canonical_form');
    expect(rule('\\tan^2(y)+1', '\\sec^2(y)')).toBe('numeric_identity');
    expect(rule('\\frac{1}{3\\sqrt[3]{x}^2}', '\\frac{1}{3x^{2/3}}')).toBe('numeric_identity');
    same('\\frac{x^2-1}{x-1}', 'x+1');
    differ('(a+5)(b+2)', '(+5)(b+2)');
    differ('x+2n+1', 'x+1');
  });

  it('evaluates at points of both signs: |x| and sqrt(x^2) are not x', () => {
    differ('x', '\\sqrt{x^2}');
    differ('x', '|x|');
    differ('1', '\\frac{|x|}{x}');
    differ('x', '\\sqrt[4]{x^4}');
    differ('x^3', '\\sqrt{x^6}');
    differ('ab', '\\sqrt{a^2 b^2}');
    differ('\\cos(2x)', '2\\sin^2 x - 1');
    differ('x', '\\arcsin(\\sin x)');
    same('|x|', '\\sqrt{x^2}');
    same('|ab|', '\\sqrt{a^2 b^2}');
    same('x^2', '\\sqrt{x^4}');
    same('x', '\\sqrt[3]{x^3}');
  });

  it('accepts identities on their common real domain (principal branches, x >= 0 where a root needs it)', () => {
    expect(rule('x', '\\sqrt{x}\\sqrt{x}')).toBe('numeric_identity');
    same('x', '(\\sqrt{x})^2');
    same('\\sqrt{xy}', '\\sqrt{x}\\sqrt{y}');
    same('\\sqrt{\\frac{x}{y}}', '\\frac{\\sqrt{x}}{\\sqrt{y}}');
    same('2\\ln x', '\\ln(x^2)');
    same('2\\ln|x|', '\\ln(x^2)');
    same('e^{\\ln x}', 'x');
    same('\\sqrt{x-5}\\sqrt{x+5}', '\\sqrt{x^2-25}');
    same('x^{2/3}', '\\sqrt[3]{x^2}');
    same('\\log_2 x', '\\frac{\\ln x}{\\ln 2}');
  });

  it('gives the same verdict on every run', () => {
    const runs = Array.from({ length: 5 }, () => rule('\\sin(2x)', '2\\sin x \\cos x'));
    expect(new Set(runs)).toEqual(new Set(['numeric_identity']));
  });
});

describe('math comparison: structures', () => {
  it('compares sets unordered, tuples ordered, lists as sets of answers', () => {
    same('\\{12, 22, -2, 1\\}', '\\{12,1,-2,22\\}');
    same('(7, 3)', '(7,3)');
    differ('(7, 3)', '(3, 7)');
    same('1, -2', '-2, 1');
    same('(2,1),(1,2)', '(1, 2), (2, 1)');
    differ('(37,3,3),(17,3,3,7)', '(17,3,3,7),(37,3,3,13)');
  });

  it('keeps a gold tuple\'s order against a bare list, and orders named components by name', () => {
    same('(3, 4)', '3, 4');
    differ('(3, 4)', '4, 3');
    same('3, 4', '(4, 3)');
    expect(rule('(2, 3)', 'y = 3, x = 2')).toBe('tuple_by_name');
    differ('(2, 3)', 'x = 3, y = 2');
    same('x = 2, y = 3', '(2, 3)');
    differ('x = 2, y = 3', '(3, 2)');
    same('(5, 2)', 'p=5, q=2');
  });

  it('compares intervals with endpoint closedness, unions after merging', () => {
    same('(-\\infty, 8)', '\\left(-\\infty,8\\right)');
    same('[-1, -\\frac{1}{2}) \\cup (-\\frac{1}{2}, 0)', '[-1, -\\tfrac12) \\cup (-\\tfrac12, 0)');
    same('[0, 2]', '[0,1) \\cup [1,2]');
    differ('(0,9)', '[0,9)');
    same('(\\frac{3}{5},\\frac{8}{3}]', '(0.6,2.6667]', 2);
  });

  it('compares matrices element-wise, after evaluating matrix arithmetic', () => {
    same('\\begin{pmatrix}6 & 8 \\\\ 10 & 12\\end{pmatrix}', '\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix} + \\begin{pmatrix}5 & 6 \\\\ 7 & 8\\end{pmatrix}');
    differ('\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}', '\\begin{pmatrix}1 & 2 \\\\ 3 & 5\\end{pmatrix}');
  });

  it('compares words', () => {
    same('\\text{Evelyn}', '\\text{Evelyn}');
    same('\\text{C}', '\\text{(C)}');
    same('\\text{odd}', 'odd');
    differ('d', '\\text{E}');
  });
});

describe('math comparison: equations and inequalities', () => {
  it('reads x = 3 as 3 when its left side only names the answer', () => {
    same('x = 3', '3');
    same('3', 'k = 3');
    same('\\frac{NO}{BO}=\\frac{1}{\\sqrt{6}}', '\\frac{1}{\\sqrt{6}}');
    differ('7 = 11a+c', '11a+c');
    differ('2x + z = 1', '1');
  });

  it('compares equations up to a constant factor on both sides', () => {
    same('2x+4y-3=0', 'y=-\\frac{1}{2}x+\\frac{3}{4}');
    same('x^2/4 + y^2/3 = 1', 'x^2/16 + y^2/12 = 1/4');
    differ('x = 3', 'y = 3');
  });

  it('compares inequalities as the sets they describe', () => {
    same('x < 1', '-x > -1');
    differ('x < 1', 'x > -1');
    same('x \\leq 5', '5 \\geq x');
    same('-2 \\le x \\le 7', '[-2, 7]');
    same('1\\leq|z|\\leq \\frac{3}{2}', '\\left[-\\frac{3}{2}, -1\\right] \\cup \\left[1, \\frac{3}{2}\\right]');
    same('0<f(x)<1', '(0,1)');
    same('x < 3', '(-\\infty, 3)');
    same('x \\ge -1', '[-1, \\infty)');
    differ('x < 3', '(-\\infty, 3]');
    differ('x \\ge 5', 'x > 5');
    same('|x| < 2', '(-2, 2)');
    same('|x| \\ge 1', '(-\\infty, -1] \\cup [1, \\infty)');
    differ('x < 3', 'y < 3');
  });
});

describe('math comparison: conditions joined by or / and', () => {
  const union = '(-\\infty, 2] \\cup (3, \\infty)';
  it.each([
    ['x \\le 2 \\text{ or } x > 3', union],
    [union, 'x \\le 2 \\text{ or } x > 3'],
    ['(-\\infty, 2) \\cup (3, \\infty)', 'x<2 \\lor x>3'],
    ['(-\\infty, 2) \\cup (3, \\infty)', 'x<2 \\vee x>3'],
    [union, 'x ≤ 2 or x > 3'],
    [union, 'x ≤ 2 ∨ x > 3'],
    [union, 'x > 3 \\text{ or } x \\le 2'],
    [union, 'x \\in (-\\infty, 2] \\cup (3, \\infty)'],
    [union, '3 < x \\text{ or } 2 \\ge x'],
    ['x \\le 2 \\text{ or } x > 3', 'x \\le 2 \\lor x > 3'],
    ['x \\le 2 \\text{ or } x > 3', '(-\\infty, 2], (3, \\infty)'],
    ['x = 1 \\text{ or } x > 3', '\\{1\\} \\cup (3, \\infty)'],
    ['(-\\infty, 3) \\cup (3, \\infty)', 'x < 3 \\text{ or } x > 3'],
    ['(-\\infty, 3) \\cup (3, \\infty)', 'x \\ne 3'],
    ['x < 1 \\text{ or } 1 \\le x \\le 2', '(-\\infty, 2]'],
    ['[1, 5)', '1 < x < 3 \\text{ or } 1 \\le x < 5'],
    ['[1, 5)', '(1, 3) \\cup [1, 5)'],
  ])('or is the union: %s vs %s', (gold, pred) => same(gold, pred));

  it.each([
    ['(1, 3)', '1 < x < 3'],
    ['(1, 3)', 'x > 1 \\text{ and } x < 3'],
    ['(1, 3)', 'x > 1 \\land x < 3'],
    ['(1, 3)', 'x > 1 \\wedge x < 3'],
    ['(1, 3)', 'x > 1 ∧ x < 3'],
    ['x > 1 \\text{ and } x < 3', '(1, 3)'],
    ['x > 1 \\text{ and } x < 3', '1 < x < 3'],
    ['[1, 3)', 'x \\ge 1 \\text{ and } x < 3'],
    ['(1, 2) \\cup (2, 3)', '1 < x < 3 \\text{ and } x \\ne 2'],
    ['(0, 1) \\cup (2, 3)', '0 < x < 3 \\text{ and } x < 1 \\text{ or } x > 2 \\text{ and } x < 3'],
    ['\\emptyset', 'x < 1 \\text{ and } x > 2'],
  ])('and is the intersection: %s vs %s', (gold, pred) => same(gold, pred));

  it.each([
    ['(-\\infty, 2) \\cup (3, \\infty)', 'x < 2, x > 3'],
    ['(1, 3)', 'x > 1, x < 3'],
    ['(1, 2) \\cup (2, 3)', '1 < x < 3, x \\ne 2'],
  ])('commas read as the union of disjoint pieces, else as constraints: %s vs %s', (gold, pred) => same(gold, pred));

  it.each([
    [union, 'x \\le 2 \\text{ or } x \\ge 3'],
    [union, 'x < 2 \\text{ or } x > 3'],
    [union, 'x \\le 2 \\text{ and } x > 3'],
    [union, 'x \\le 3 \\text{ or } x > 2'],
    ['(1, 3)', 'x > 1 \\text{ or } x < 3'],
    ['(1, 3)', 'x \\ge 1 \\text{ and } x < 3'],
    ['(1, 3)', 'x > 1 \\text{ and } y < 3'],
    ['x \\le 2 \\text{ or } x > 3', 'x \\le 2 \\text{ and } x > 3'],
    ['x \\le 2 \\text{ or } x > 3', 'y \\le 2 \\text{ or } y > 3'],
    ['x \\le 2 \\text{ or } x > 3', '(-\\infty, 2) \\cup (3, \\infty)'],
    ['x \\le 2 \\text{ or } x > 3', '2'],
  ])('near-misses stay false: %s vs %s', (gold, pred) => differ(gold, pred));

  it('compares conditions on different unknowns one by one', () => {
    same('x > 0 \\text{ and } y > 0', 'y > 0 \\land x > 0');
    differ('x > 0 \\text{ and } y > 0', 'x > 0 \\text{ or } y > 0');
    differ('x > 0 \\text{ and } y > 0', 'x > 0 \\text{ and } y < 0');
  });
});
