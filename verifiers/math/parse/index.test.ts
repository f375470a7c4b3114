import { DEFAULT_LIMITS, TooComplex } from '../budget';
import type { Node } from './ast';
import { parseAnswer } from '.';
import { tokenize } from './lexer';

function parse(text: string, plain = false): Node {
  const r = parseAnswer(text, { plain }, DEFAULT_LIMITS);
  if (!r.ok) throw new Error(`${text}: ${r.error}`);
  return r.node;
}
const kind = (text: string, plain = false) => parse(text, plain).k;

describe('math lexer', () => {
  it('maps LaTeX and plain spellings of one operator to one token', () => {
    expect(tokenize('a \\le b', 100)).toEqual(tokenize('a <= b', 100));
    expect(tokenize('2 \\cdot 3', 100)).toEqual(tokenize('2 \\times 3', 100));
    expect(tokenize('x≥1', 100)).toEqual(tokenize('x \\geq 1', 100));
  });

  it('joins LaTeX thousands separators into the number', () => {
    expect(tokenize('14{,}916', 100)).toEqual([{ t: 'num', text: '14916' }]);
    expect(tokenize('11,\\! 111,\\! 100', 100)).toEqual([{ t: 'num', text: '11111100' }]);
    expect(tokenize('32, 349', 100)).toHaveLength(3);
  });

  it('drops spacing macros, \\left/\\right and delimiters', () => {
    expect(tokenize('\\left( 1 \\, \\quad \\right)', 100)).toEqual([{ t: 'op', v: '(' }, { t: 'num', text: '1' }, { t: 'op', v: ')' }]);
  });

  it('counts tokens against the budget', () => {
    expect(() => tokenize('1+'.repeat(100), 50)).toThrow(TooComplex);
  });
});

describe('math parser', () => {
  it('reads numbers: thousands, decimals, decimal commas in prose, mixed numbers, bases', () => {
    expect(parse('7,425,000')).toMatchObject({ k: 'num', value: { n: 7425000n, d: 1n } });
    expect(parse('1 000')).toMatchObject({ k: 'num', value: { n: 1000n } });
    expect(parse('.4')).toMatchObject({ k: 'num', value: { n: 2n, d: 5n }, decimal: true });
    expect(parse('1,22', true)).toMatchObject({ k: 'num', value: { n: 61n, d: 50n }, decimal: true });
    expect(kind('1,22')).toBe('list');
    expect(parse('3\\frac{1}{2}')).toMatchObject({ k: 'add' });
    expect(parse('204_5')).toMatchObject({ k: 'num', value: { n: 54n } });
    expect(parse('2.5e-3')).toMatchObject({ k: 'mul', factors: [{ k: 'num' }, { k: 'pow', exp: { k: 'neg' } }] });
  });

  it('reads repeating decimals as exact rationals', () => {
    const value = (text: string) => {
      const node = parse(text);
      if (node.k !== 'num') throw new Error(`${text} is a ${node.k}`);
      return `${node.value.n}/${node.value.d}${node.decimal ? ' decimal' : ''}`;
    };
    expect(value('0.\\overline{3}')).toBe('1/3');
    expect(value('0.\\bar{3}')).toBe('1/3');
    expect(value('0.1\\overline{6}')).toBe('1/6');
    expect(value('0.\\overline{09}')).toBe('1/11');
    expect(value('1.\\overline{142857}')).toBe('8/7');
    expect(value('0.\\dot{3}')).toBe('1/3');
    expect(value('0.\\dot{1}4285\\dot{7}')).toBe('1/7');
    expect(value('0.(3)')).toBe('1/3');
    expect(value('0.58(3)')).toBe('7/12');
    expect(value('0.333...')).toBe('1/3');
    expect(value('0.1666\\ldots')).toBe('1/6');
    expect(value('0.1212\\dots')).toBe('4/33');
    // A truncated decimal before an ellipsis stays a decimal.
    expect(value('3.14159...')).toBe('314159/100000 decimal');
    expect(value('0.33...')).toBe('33/100 decimal');
  });

  it('keeps the words that join a list', () => {
    expect(parse('x \\le 2 \\text{ or } x > 3')).toMatchObject({ k: 'list', joins: ['or'] });
    expect(parse('x>1 \\land x<3')).toMatchObject({ k: 'list', joins: ['and'] });
    expect(parse('x<1 \\lor x>2, x = 5')).toMatchObject({ k: 'list', joins: ['or', ','] });
    expect(parse('x<1, \\text{or } x>2')).toMatchObject({ k: 'list', joins: ['or'] });
    expect(parse('x < 1 or x > 2')).toMatchObject({ k: 'list', joins: ['or'] });
    expect(parse('1 and 2')).toMatchObject({ k: 'list', joins: ['and'] });
  });

  it('reads fractions, roots, powers, malformed shorthands', () => {
    expect(parse('\\frac12')).toMatchObject({ k: 'div', num: { k: 'num' }, den: { k: 'num' } });
    expect(parse('\\dfrac{a}{b}')).toMatchObject({ k: 'div' });
    expect(parse('\\sqrt[3]{x}')).toMatchObject({ k: 'root', index: { k: 'num', value: { n: 3n } } });
    expect(parse('\\sqrt 2')).toMatchObject({ k: 'root', arg: { k: 'num' } });
    expect(parse('x^{2}')).toMatchObject({ k: 'pow' });
    expect(parse('a/b')).toMatchObject({ k: 'div' });
  });

  it('reads constants, functions and implicit multiplication', () => {
    expect(parse('2\\pi r')).toMatchObject({ k: 'mul', factors: [{ k: 'num' }, { k: 'const', name: 'pi' }, { k: 'sym', name: 'r' }] });
    expect(parse('\\sin^2 x')).toMatchObject({ k: 'pow', base: { k: 'fn', name: 'sin' } });
    expect(parse('\\sin b \\cos a')).toMatchObject({ k: 'mul', factors: [{ k: 'fn', name: 'sin' }, { k: 'fn', name: 'cos' }] });
    expect(parse('\\log_2 8')).toMatchObject({ k: 'fn', name: 'log', base: { k: 'num' } });
    expect(parse('|x-1|')).toMatchObject({ k: 'fn', name: 'abs' });
    expect(parse('5!')).toMatchObject({ k: 'factorial' });
    expect(parse('\\binom{5}{2}')).toMatchObject({ k: 'binom' });
    expect(parse('f(x)')).toMatchObject({ k: 'apply', name: 'f' });
    expect(parse('x(x+1)')).toMatchObject({ k: 'mul' });
    expect(parse('e^{i\\pi}')).toMatchObject({ k: 'pow', base: { k: 'const', name: 'e' } });
    expect(parse('\\infty')).toMatchObject({ k: 'const', name: 'inf' });
  });

  it('reads \\pm, percent and degrees', () => {
    expect(parse('1 \\pm \\sqrt{19}')).toMatchObject({ k: 'pm', left: { k: 'num' } });
    expect(parse('28\\%')).toMatchObject({ k: 'percent' });
    expect(parse('28 percent')).toMatchObject({ k: 'percent' });
    expect(parse('90^\\circ')).toMatchObject({ k: 'degree' });
    expect(parse('90^{\\circ}')).toMatchObject({ k: 'degree', arg: { k: 'num' } });
  });

  it('drops units written as text after a quantity', () => {
    expect(parse('15\\mbox{ cm}^2')).toMatchObject({ k: 'num', value: { n: 15n } });
    expect(parse('0.06 \\text{ yuan}')).toMatchObject({ k: 'num' });
    expect(parse('35 cm')).toMatchObject({ k: 'num', value: { n: 35n } });
    expect(parse('50 \\text{ km}/\\text{h}')).toMatchObject({ k: 'num', value: { n: 50n } });
    expect(parse('9.8\\text{ m}/\\text{s}^2')).toMatchObject({ k: 'num', decimal: true });
    expect(parse('\\text{Evelyn}')).toEqual({ k: 'text', text: 'Evelyn' });
  });

  it('reads tuples, intervals, sets, unions, lists and matrices', () => {
    expect(parse('(1, 2)')).toMatchObject({ k: 'tuple', bracket: '(' });
    expect(parse('[1, 2)')).toMatchObject({ k: 'interval', loClosed: true, hiClosed: false });
    expect(parse('\\{1, 2\\}')).toMatchObject({ k: 'set' });
    expect(parse('{1, 3}')).toMatchObject({ k: 'tuple', bracket: '{' });
    expect(parse('(2, 12) \\cup (12, 102)')).toMatchObject({ k: 'union' });
    expect(parse('6 \\text{ and } 8')).toMatchObject({ k: 'list' });
    expect(parse('(11,7)or(7,11)')).toMatchObject({ k: 'list' });
    expect(parse('p=5,q=2;p=7,q=2')).toMatchObject({ k: 'list', items: [{ k: 'tuple' }, { k: 'tuple' }] });
    expect(parse('\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}')).toMatchObject({ k: 'matrix', rows: [[{}, {}], [{}, {}]] });
    expect(parse('\\left[\\begin{array}{cc}1 & 2 \\\\3 & 4\\end{array}\\right]')).toMatchObject({ k: 'matrix' });
  });

  it('reads a choice label before its value, not before another choice', () => {
    expect(parse('\\textbf{(C) } 18')).toMatchObject({ k: 'choice', letter: 'C', value: { k: 'num' } });
    expect(parse('(B) \\frac{1}{2}')).toMatchObject({ k: 'choice', letter: 'B', value: { k: 'div' } });
    expect(parse('\\text{(A)} \\text{ and } \\text{(C)}')).toMatchObject({ k: 'list' });
    expect(parse('\\text{(A)}')).toMatchObject({ k: 'text' });
  });

  it('reads equations and inequality chains', () => {
    expect(parse('x = 3')).toMatchObject({ k: 'rel', ops: ['='] });
    expect(parse('-2 \\le x < 7')).toMatchObject({ k: 'rel', ops: ['<=', '<'] });
    expect(parse('x \\in [0, 1]')).toMatchObject({ k: 'rel', ops: ['in'] });
    expect(parse('x != 3')).toMatchObject({ k: 'rel', ops: ['!='] });
  });

  it('reports what it cannot read as an error, not an exception', () => {
    expect(parseAnswer('(1, 2', { plain: false }, DEFAULT_LIMITS)).toMatchObject({ ok: false });
    expect(parseAnswer('\\frac{1}', { plain: false }, DEFAULT_LIMITS)).toMatchObject({ ok: false });
    expect(parseAnswer('x \\Rightarrow y', { plain: false }, DEFAULT_LIMITS)).toMatchObject({ ok: false });
  });

  it('refuses nesting beyond the depth budget', () => {
    expect(() => parseAnswer('{'.repeat(500) + '1' + '}'.repeat(500), { plain: false }, DEFAULT_LIMITS)).toThrow(TooComplex);
  });
});
