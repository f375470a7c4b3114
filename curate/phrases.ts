/**
 * Which phrases of a benchmark item are screened. The recipe samples ~20 evenly spaced 8-word
 * phrases per item; `exhaustive` takes every one (its screen for AIME, HMMT, GPQA).
 */
export interface PhraseSampling {
  /** Words per phrase (8). */
  n: number;
  /** Phrases per item when sampling (20). */
  count: number;
  exhaustive: boolean;
}

export interface PhraseSpan {
  start: number;
  length: number;
}

/**
 * The phrases of an item of `wordCount` words. With P = wordCount − n + 1 possible starts, sampling
 * takes `count` starts spread evenly from the first to the last (start k = round(k·(P−1)/(count−1))),
 * or all P when P ≤ count. An item shorter than n words is one phrase, all its words: it cannot hold
 * an n-word phrase, and the whole item appearing in a sample is the evidence that remains.
 */
export function phraseSpans(wordCount: number, sampling: PhraseSampling): PhraseSpan[] {
  if (wordCount === 0) return [];
  if (wordCount < sampling.n) return [{ start: 0, length: wordCount }];
  const possible = wordCount - sampling.n + 1;
  const spans: PhraseSpan[] = [];
  if (sampling.exhaustive || possible <= sampling.count) {
    for (let s = 0; s < possible; s++) spans.push({ start: s, length: sampling.n });
    return spans;
  }
  let last = -1;
  for (let k = 0; k < sampling.count; k++) {
    const start = sampling.count === 1 ? 0 : Math.round((k * (possible - 1)) / (sampling.count - 1));
    if (start !== last) spans.push({ start, length: sampling.n });
    last = start;
  }
  return spans;
}
