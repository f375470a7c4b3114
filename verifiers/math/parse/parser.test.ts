import { DEFAULT_LIMITS } from '../budget';
import type { Node } from './ast';
import { parseAnswer } from '.';
import { symbolName } from './parser';

function parse(text: string): Node {
  const r = parseAnswer(text, { plain: false }, DEFAULT_LIMITS);
  if (!r.ok) throw new Error(`${text}: ${r.error}`);
  return r.node;
}

describe('subscripted symbols and their names', () => {
  it('names a subscripted symbol after its base and subscript', () => {
    expect(parse('a_{n+1}')).toEqual({ k: 'sym', name: 'a_n+1' });
    expect(parse('a_{n-1}')).toEqual({ k: 'sym', name: 'a_n-1' });
    expect(parse('x_{12}')).toEqual({ k: 'sym', name: 'x_12' });
    expect(parse('a_{2n}')).toEqual({ k: 'sym', name: 'a_2n' });
    expect(parse('a_{\\text{max}}')).toEqual({ k: 'sym', name: 'a_max' });
    expect(parse('a_{n+1}')).not.toEqual(parse('a_{n-1}'));
  });

  it('names a subscript of any other shape without throwing (a bigint inside once made it ABORT)', () => {
    for (const text of ['a_{n^2}', 'a_{\\frac{1}{2}}', 'x_{\\sqrt{2}}', 'a_{1/2}']) {
      const node = parse(text);
      expect([text, node.k]).toEqual([text, 'sym']);
    }
    // Different subscripts stay different symbols; the same one is the same symbol.
    expect(parse('a_{n^2}')).toEqual(parse('a_{n^{2}}'));
    expect(parse('a_{n^2}')).not.toEqual(parse('a_{n^3}'));
  });

  it('reads a base-b numeral as its value', () => {
    expect(parse('1011_2')).toMatchObject({ k: 'num', value: { n: 11n, d: 1n } });
    expect(parseAnswer('12_2', { plain: false }, DEFAULT_LIMITS)).toEqual({ ok: false, error: expect.stringContaining('not a base-2 numeral') });
  });

  it('writes symbol names from numbers, sums, products and negations', () => {
    expect(symbolName({ k: 'sym', name: 'x' })).toBe('x');
    expect(symbolName({ k: 'num', value: { n: 3n, d: 4n }, decimal: false } as Node)).toBe('3/4');
    expect(symbolName(parse('n-1'))).toBe('n-1');
  });
});
