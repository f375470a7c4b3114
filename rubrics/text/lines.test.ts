import { countByLines } from './lines';
import { withMemo } from './memo';

/** Counts \w runs, and how many times it was asked. */
function counter() {
  const asked: string[] = [];
  const count = (text: string) => {
    asked.push(text);
    return text.match(/\w+/g)?.length ?? 0;
  };
  return { count, asked };
}

describe('countByLines', () => {
  const texts = ['', 'one', 'one two\nthree', 'a\n\nb c\n', '\n\n', 'x y z\nx y z\nx y z'];

  it('gives the whole-text count in and out of a memo scope', () => {
    const { count } = counter();
    const byLines = countByLines(count);
    for (const t of texts) {
      expect(byLines(t)).toBe(count(t));
      expect(withMemo('texts', () => byLines(t))).toBe(count(t));
      expect(withMemo('parts', () => byLines(t))).toBe(count(t));
    }
  });

  it('counts each distinct line once in a loose (parts) scope, so variants share their lines', () => {
    const { count, asked } = counter();
    const byLines = countByLines(count);
    const response = 'Sure:\nline one\nline two\nBye';
    const total = withMemo('parts', () => byLines(response) + byLines('line one\nline two\nBye') + byLines('line one\nline two'));
    expect(total).toBe(6 + 5 + 4);
    expect(asked.sort()).toEqual(['Bye', 'Sure:', 'line one', 'line two']);
  });

  it('counts the text whole outside a parts scope (strict mode memoizes no parts)', () => {
    const { count, asked } = counter();
    const byLines = countByLines(count);
    withMemo('texts', () => byLines('a b\nc'));
    expect(asked).toEqual(['a b\nc']);
  });
});
