import { normalize } from './text';

/**
 * The text two sides of a dense-retrieval candidate share, for the reviewer's eye: runs of at
 * least `n` words found in both, as character spans of each original text (so the page can mark
 * them without re-reading). Words are read as the 8-gram screen reads them (curate/text.ts:
 * NFKC, lower case, runs of letters, marks and digits; a Han or kana character a word of its own),
 * but each word keeps its place in the text it came from.
 */

export interface Span {
  start: number;
  end: number;
}

const WORD = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])[\p{L}\p{M}\p{N}])+/gu;

interface Word {
  text: string;
  start: number;
  end: number;
}

function wordsWithOffsets(text: string): Word[] {
  const out: Word[] = [];
  for (const m of text.matchAll(WORD)) out.push({ text: normalize(m[0]), start: m.index, end: m.index + m[0].length });
  return out;
}

const gramKey = (words: readonly Word[], at: number, n: number): string => {
  let key = words[at]!.text;
  for (let k = 1; k < n; k++) key += ' ' + words[at + k]!.text;
  return key;
};

/** Spans of `words` covered by an n-gram that `other` also holds, merged where they touch. */
function covered(words: readonly Word[], other: ReadonlySet<string>, n: number): Span[] {
  const marked = new Uint8Array(words.length);
  for (let i = 0; i + n <= words.length; i++) if (other.has(gramKey(words, i, n))) marked.fill(1, i, i + n);
  const spans: Span[] = [];
  for (let i = 0; i < words.length; i++) {
    if (!marked[i]) continue;
    let j = i;
    while (j + 1 < words.length && marked[j + 1]) j++;
    spans.push({ start: words[i]!.start, end: words[j]!.end });
    i = j;
  }
  return spans;
}

function grams(words: readonly Word[], n: number): Set<string> {
  const set = new Set<string>();
  for (let i = 0; i + n <= words.length; i++) set.add(gramKey(words, i, n));
  return set;
}

/**
 * Shared runs of at least `n` words (n ≥ 1). A text shorter than n words shares nothing unless
 * the other holds all its words in a row, which is checked as one shorter run.
 */
export function sharedSpans(a: string, b: string, n: number): { a: Span[]; b: Span[]; sharedWords: number } {
  const wa = wordsWithOffsets(a);
  const wb = wordsWithOffsets(b);
  const size = Math.max(1, Math.min(n, wa.length, wb.length));
  if (wa.length === 0 || wb.length === 0) return { a: [], b: [], sharedWords: 0 };
  const spansA = covered(wa, grams(wb, size), size);
  const spansB = covered(wb, grams(wa, size), size);
  // Words of a marked in a's spans: a measure of how much of the sample repeats the item.
  let sharedWords = 0;
  for (const w of wa) if (spansA.some((s) => w.start >= s.start && w.end <= s.end)) sharedWords++;
  return { a: spansA, b: spansB, sharedWords };
}
