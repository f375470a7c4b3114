import { buildScreen, type ScreenSpec } from './screen';

const SAMPLING = { n: 8, count: 20, exhaustive: false };
const item = (tag: string, n = 200) => Array.from({ length: n }, (_, k) => `w${tag}x${k}`).join(' ');

describe('a decontamination screen built from plain data', () => {
  const wordsSpec: ScreenSpec = {
    form: 'words',
    threshold: 0.5,
    benchmarks: [
      { name: 'first', items: [{ id: 'A', text: item('a') }, { id: 'empty', text: '' }, { id: 'short', text: 'three words only' }], sampling: SAMPLING },
      { name: 'second', items: [{ id: 'B', text: item('b') }], sampling: SAMPLING },
    ],
  };

  it('finds an item of the word form, tagged with its form, benchmark and pass', () => {
    const screen = buildScreen(wordsSpec);
    expect(screen.scan(`Solve this: ${item('b')}`)).toMatchObject({ form: 'words', pass: 1, benchmark: 'second', itemId: 'B' });
    expect(screen.scan(item('a'))).toMatchObject({ form: 'words', pass: 0, itemId: 'A' });
    expect(screen.scan('an unrelated sentence about nothing in particular')).toBeNull();
  });

  it('counts per pass what it indexed and the items it cannot screen', () => {
    const [first, second] = buildScreen(wordsSpec).indexed();
    expect(first).toMatchObject({ emptyItems: 1, shortItems: 1 });
    expect(first!.entries).toBeGreaterThan(0);
    expect(second).toMatchObject({ emptyItems: 0, shortItems: 0 });
    expect(second!.entries).toBeGreaterThan(0);
  });

  it('finds an item of the code form by its prefix or shared n-grams', () => {
    const problem = 'Given an array A of N integers, find the length of the longest strictly increasing subsequence. ' + 'x'.repeat(400);
    const screen = buildScreen({ form: 'code', code: { prefixChars: 400, n: 60, minShared: 5 }, benchmarks: [{ name: 'lcb', items: [{ id: 'p1', text: problem }] }] });
    expect(screen.scan(problem.toUpperCase())).toMatchObject({ form: 'code', pass: 0, benchmark: 'lcb', itemId: 'p1', rule: 'prefix' });
    expect(screen.scan('Read two integers and print their sum. '.repeat(20))).toBeNull();
    expect(screen.indexed()).toHaveLength(1);
  });

  it('is the same screen after the spec crosses a thread boundary (structured clone)', () => {
    const text = `prefix ${item('a')} suffix`;
    expect(buildScreen(structuredClone(wordsSpec)).scan(text)).toEqual(buildScreen(wordsSpec).scan(text));
  });
});
