import { PhraseIndex } from './phrase-index';
import { phraseSpans } from './phrases';
import { CodeIndex } from './code-index';

const SAMPLING = { n: 8, count: 20, exhaustive: false };

/** An item of `n` distinct words: w<tag>0 … w<tag>(n−1), so every phrase is unique to it. */
function item(tag: string, n = 200): string {
  return Array.from({ length: n }, (_, k) => `w${tag}x${k}`).join(' ');
}

/** A sample holding exactly the item's sampled phrases listed, separated by filler that breaks windows. */
function sampleWith(text: string, which: readonly number[]): string {
  const itemWords = text.split(' ');
  const spans = phraseSpans(itemWords.length, SAMPLING);
  return which.map((k) => itemWords.slice(spans[k]!.start, spans[k]!.start + spans[k]!.length).join(' ')).join(' ; filler ; ');
}

const range = (n: number) => Array.from({ length: n }, (_, k) => k);

describe('word n-gram screen', () => {
  const a = item('a');
  const index = new PhraseIndex([{ name: 'bench', items: [{ id: 'A', text: a }], sampling: SAMPLING }], 0.5);

  it.each([
    [9, null],
    [10, 10],
    [11, 11],
  ])('a sample with %i of 20 phrases: removed only from 50%% up', (k, hits) => {
    const match = index.scan(sampleWith(a, range(k)));
    if (hits === null) expect(match).toBeNull();
    else expect(match).toMatchObject({ benchmark: 'bench', itemId: 'A', hits, phrases: 20 });
  });

  it('counts each phrase once however often it occurs', () => {
    expect(index.scan(sampleWith(a, [0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8]))).toBeNull();
  });

  it('reports the matched phrases in the item\'s order', () => {
    const match = index.scan(sampleWith(a, [12, 3, 7, 0, 1, 2, 4, 5, 6, 8]))!;
    expect(match.matched).toHaveLength(10);
    expect(match.matched[0]).toBe(a.split(' ').slice(0, 8).join(' '));
  });

  it('finds the phrases whatever the case, punctuation, spacing or Unicode form around them', () => {
    const copy = a
      .split(' ')
      .map((w, k) => (k % 3 === 0 ? w.toUpperCase() : w))
      .join(k3());
    expect(index.scan(`Some preamble. ${copy}`)).toMatchObject({ hits: 20 });
    const fullWidth = [...a].map((c) => (c >= 'a' && c <= 'z' ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join('');
    expect(index.scan(fullWidth)).toMatchObject({ hits: 20 });
  });

  it('does not match a phrase split across a word: substrings of words are not words', () => {
    const glued = a.split(' ').join('');
    expect(index.scan(glued)).toBeNull();
  });

  it('reads a phrase that spans two turns of a conversation (the turns are concatenated)', () => {
    const words = a.split(' ');
    const spans = phraseSpans(words.length, SAMPLING);
    // Every sampled phrase, each cut in two halves that end and begin consecutive messages.
    const turns = range(20).flatMap((k) => {
      const p = words.slice(spans[k]!.start, spans[k]!.start + 8);
      return [p.slice(0, 4).join(' '), p.slice(4).join(' ') + ' .'];
    });
    expect(index.scan(turns.join('\n'))).toMatchObject({ hits: 20 });
  });

  it('scans a very long sample (200,000 words) and finds a copy at its end', () => {
    const long = Array.from({ length: 200_000 }, (_, k) => `noise${k % 997}`).join(' ') + ' ' + a;
    expect(index.scan(long)).toMatchObject({ itemId: 'A', hits: 20 });
  });

  it('screens an item shorter than 8 words as one phrase of all its words; an empty item not at all', () => {
    const short = new PhraseIndex([{ name: 'b', items: [{ id: 's', text: 'Prove that five is prime' }, { id: 'e', text: '  ...  ' }], sampling: SAMPLING }], 0.5);
    expect(short.scan('We will prove that FIVE is prime, as asked.')).toMatchObject({ itemId: 's', hits: 1, phrases: 1 });
    expect(short.scan('prove that five is odd')).toBeNull();
    expect(short.shortItems).toEqual([1]);
    expect(short.emptyItems).toEqual([1]);
  });

  it('attributes a sample to the first benchmark of the chain that matches it', () => {
    const shared = item('s');
    const first = new PhraseIndex(
      [
        { name: 'one', items: [{ id: '1', text: shared }], sampling: SAMPLING },
        { name: 'two', items: [{ id: '2', text: shared }], sampling: SAMPLING },
      ],
      0.5,
    );
    const reversed = new PhraseIndex(
      [
        { name: 'two', items: [{ id: '2', text: shared }], sampling: SAMPLING },
        { name: 'one', items: [{ id: '1', text: shared }], sampling: SAMPLING },
      ],
      0.5,
    );
    expect(first.scan(shared)).toMatchObject({ pass: 0, benchmark: 'one' });
    expect(reversed.scan(shared)).toMatchObject({ pass: 0, benchmark: 'two' });
  });

  it('exhaustive mode indexes every phrase and catches a copy edited exactly where the sampled phrases lie', () => {
    const words = a.split(' ');
    const spans = phraseSpans(words.length, SAMPLING);
    const edited = [...words];
    for (const span of spans) edited[span.start + 4] = 'changed';
    const sampled = new PhraseIndex([{ name: 'b', items: [{ id: 'A', text: a }], sampling: SAMPLING }], 0.1);
    const exhaustive = new PhraseIndex([{ name: 'b', items: [{ id: 'A', text: a }], sampling: { ...SAMPLING, exhaustive: true } }], 0.1);
    expect(sampled.phrasesPerPass()).toEqual([20]);
    expect(exhaustive.phrasesPerPass()).toEqual([193]);
    expect(sampled.scan(edited.join(' '))).toBeNull();
    const match = exhaustive.scan(edited.join(' '))!;
    expect(match.phrases).toBe(193);
    expect(match.hits / match.phrases).toBeGreaterThanOrEqual(0.1);
    expect(match.hits).toBeLessThan(193 - 20 * 7);
  });
});

function k3(): string {
  return ' \n\t, ';
}

describe('code form', () => {
  const problem = 'Given an array A of N integers, find the length of the longest strictly increasing subsequence. ' + 'Constraints: 1 <= N <= 200000. '.repeat(3) + 'x'.repeat(400);
  const code = new CodeIndex([{ name: 'lcb', items: [{ id: 'p1', text: problem }] }], { prefixChars: 400, n: 60, minShared: 5 });

  it('removes a statement whose first 400 characters are the same, whitespace and case aside', () => {
    const rewrapped = problem.slice(0, 400).replace(/ /g, '\n  ').toUpperCase() + ' and then something else entirely';
    expect(code.scan(rewrapped)).toMatchObject({ itemId: 'p1', rule: 'prefix' });
  });

  it('removes a sample that shares 5 distinct 60-character n-grams, not one that shares 4', () => {
    const text = problem.replace(/\s+/g, ' ').toLowerCase();
    const piece = (len: number) => text.slice(100, 100 + len);
    // A run of 60 + k − 1 characters holds k distinct 60-grams (the statement has no repeats there).
    expect(code.scan('intro ' + piece(63) + ' outro')).toBeNull();
    expect(code.scan('intro ' + piece(64) + ' outro')).toMatchObject({ rule: 'ngrams', shared: 5 });
  });

  it('leaves unrelated statements alone', () => {
    expect(code.scan('Read two integers and print their sum. '.repeat(20))).toBeNull();
  });
});
