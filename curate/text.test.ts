import type { JsonObject } from '../core/json';
import { itemText, rowText, words } from './text';
import { phraseSpans } from './phrases';
import { dedupKey } from './dedup';

describe('curate text: what a word is', () => {
  it.each([
    ['The Quick, brown fox!', ['the', 'quick', 'brown', 'fox']],
    ['don\'t stop—ever…', ['don', 't', 'stop', 'ever']],
    ['ｆｕｌｌ ｗｉｄｔｈ ＡＢＣ１２３', ['full', 'width', 'abc123']],
    ['the ﬁnal ﬂoor', ['the', 'final', 'floor']],
    ['x² + y² = 1', ['x2', 'y2', '1']],
    ['\\frac{1}{2} + \\sqrt{x^2}', ['frac', '1', '2', 'sqrt', 'x', '2']],
    ['$f(x) = 3.14x$', ['f', 'x', '3', '14x']],
    ['Ünïcödé ÉCOLE straße', ['ünïcödé', 'école', 'straße']],
    ['日本語の文章です', ['日', '本', '語', 'の', '文', '章', 'で', 'す']],
    ['中文abc测试', ['中', '文', 'abc', '测', '试']],
    ['한국어 문장', ['한국어', '문장']],
    ['  \n\t ', []],
  ])('%j → %j', (text, expected) => {
    expect(words(text)).toEqual(expected);
  });

  it('reads a decomposed and a precomposed accent as the same word (NFKC)', () => {
    expect(words('cafe\u0301')).toEqual(words('café'));
  });
});

describe('curate text: what of a row is screened', () => {
  const row: JsonObject = {
    id: 'r1',
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Solve the puzzle.' },
      { role: 'assistant', content: '', tool_calls: [{ function: { name: 'search', arguments: '{"q":"zebra"}' } }] },
      { role: 'tool', content: 'The zebra lives in Africa.' },
    ],
  };

  it('takes every string of every turn in order, system, tool calls and tool results included', () => {
    const text = rowText(row, null);
    const order = ['You are terse.', 'Solve the puzzle.', 'zebra', 'The zebra lives in Africa.'].map((s) => text.indexOf(s));
    expect(order.every((p) => p >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('narrows to the fields named, in the order named', () => {
    expect(rowText({ a: 'first', b: { c: 'second' } }, ['b.c', 'a'])).toBe('second\nfirst');
    expect(rowText({ a: 'x' }, ['missing'])).toBe('');
  });

  it('reads a benchmark item by its question field, else everything but its id', () => {
    expect(itemText({ id: 'q1', question: 'What is two plus two?', answer: '4' }, 'id')).toBe('What is two plus two?');
    expect(itemText({ id: 'q1', body: 'Compute it.', source: 'x' }, 'id')).toBe('Compute it.\nx');
  });
});

describe('phrase sampling', () => {
  const sampling = { n: 8, count: 20, exhaustive: false };

  it('spreads 20 phrases evenly from the first word to the last', () => {
    const spans = phraseSpans(200, sampling);
    expect(spans).toHaveLength(20);
    expect(spans[0]!.start).toBe(0);
    expect(spans.at(-1)!.start + spans.at(-1)!.length).toBe(200);
    const gaps = spans.slice(1).map((s, k) => s.start - spans[k]!.start);
    expect(Math.max(...gaps) - Math.min(...gaps)).toBeLessThanOrEqual(1);
  });

  it('takes every phrase when the item has no more than 20, and one whole-item phrase under 8 words', () => {
    expect(phraseSpans(27, sampling)).toHaveLength(20);
    expect(phraseSpans(20, sampling)).toHaveLength(13);
    expect(phraseSpans(8, sampling)).toEqual([{ start: 0, length: 8 }]);
    expect(phraseSpans(5, sampling)).toEqual([{ start: 0, length: 5 }]);
    expect(phraseSpans(0, sampling)).toEqual([]);
  });

  it('takes all of them when exhaustive', () => {
    expect(phraseSpans(200, { ...sampling, exhaustive: true })).toHaveLength(193);
  });
});

describe('dedup key', () => {
  it('ignores case and whitespace only', () => {
    expect(dedupKey('Given  an array\n of N integers ')).toBe(dedupKey('given an array of n integers'));
    expect(dedupKey('Given an array of N integers.')).not.toBe(dedupKey('Given an array of N integers'));
    expect(dedupKey('Given an array of M integers')).not.toBe(dedupKey('Given an array of N integers'));
    expect(dedupKey('a\u00a0b')).toBe(dedupKey('a b'));
  });
});
