import { phraseSpans, type PhraseSampling } from './phrases';
import { newSpans, normalize, splitWords, type WordSpans } from './text';

/**
 * The word n-gram screen: every benchmark's phrases indexed once, then each training sample scanned
 * once for all of them (one pass over the data per chain, not per item or per benchmark).
 *
 * A phrase is looked up by a 53-bit key made of two independent 32-bit polynomial hashes of its
 * words' hashes, computed for every window of the sample from prefix sums in O(1). A key that hits
 * is then checked word by word, so a hash collision costs time, never a wrong removal.
 */

export interface BenchmarkSpec {
  name: string;
  items: ReadonlyArray<{ id: string; text: string }>;
  sampling: PhraseSampling;
}

export interface PhraseMatch {
  /** Position of the benchmark in the chain: the first pass that removes the sample. */
  pass: number;
  benchmark: string;
  itemId: string;
  /** Distinct phrases of the item found in the sample, and the item's phrase count. */
  hits: number;
  phrases: number;
  /** The matched phrases, normalized, in the item's order. */
  matched: string[];
}

const BASE_A = 0x01000193;
const BASE_B = 0x5bd1e995;

function key(hashA: number, hashB: number): number {
  return (hashA >>> 11) * 0x100000000 + (hashB >>> 0);
}

export class PhraseIndex {
  private readonly maps = new Map<number, Map<number, number>>();
  /** Window lengths present (n, and shorter items' lengths), longest first. */
  private readonly lengths: number[];
  private readonly phraseItem: number[] = [];
  private readonly phraseText: string[] = [];
  private readonly phraseOrder: number[] = [];
  private readonly phraseNext: number[] = [];
  private readonly itemPass: number[] = [];
  private readonly itemId: string[] = [];
  private readonly itemPhrases: number[] = [];
  private readonly passNames: string[];
  private readonly powA: Int32Array;
  private readonly powB: Int32Array;
  // Per-scan scratch, reused: counts by item and "seen in this sample" stamps by phrase.
  private readonly itemHits: Int32Array;
  private readonly itemStamp: Int32Array;
  private readonly phraseStamp: Int32Array;
  private stamp = 0;
  private readonly spans: WordSpans = newSpans();
  private prefixA = new Int32Array(1024);
  private prefixB = new Int32Array(1024);
  readonly itemCount: number;
  /** Items with no words at all (nothing to screen), per pass. */
  readonly emptyItems: number[];
  /** Items shorter than n words (screened as one whole-item phrase), per pass. */
  readonly shortItems: number[];

  constructor(
    benchmarks: readonly BenchmarkSpec[],
    private readonly threshold: number,
  ) {
    this.passNames = benchmarks.map((b) => b.name);
    this.emptyItems = benchmarks.map(() => 0);
    this.shortItems = benchmarks.map(() => 0);
    let longest = 1;
    const spans = newSpans();
    benchmarks.forEach((benchmark, pass) => {
      for (const item of benchmark.items) {
        const text = normalize(item.text);
        const count = splitWords(text, spans);
        const index = this.itemId.length;
        this.itemPass.push(pass);
        this.itemId.push(item.id);
        const seen = new Set<string>();
        for (const span of phraseSpans(count, benchmark.sampling)) {
          const phrase = text.slice(spans.starts[span.start], spans.ends[span.start + span.length - 1]);
          const words = wordsOf(phrase);
          if (seen.has(words)) continue;
          seen.add(words);
          let a = 0;
          let b = 0;
          for (let k = span.start; k < span.start + span.length; k++) {
            a = (Math.imul(a, BASE_A) + spans.hashA[k]!) | 0;
            b = (Math.imul(b, BASE_B) + spans.hashB[k]!) | 0;
          }
          let map = this.maps.get(span.length);
          if (!map) this.maps.set(span.length, (map = new Map()));
          const id = this.phraseItem.length;
          const k = key(a, b);
          this.phraseItem.push(index);
          this.phraseText.push(words);
          this.phraseOrder.push(span.start);
          this.phraseNext.push(map.get(k) ?? -1);
          map.set(k, id);
          longest = Math.max(longest, span.length);
        }
        this.itemPhrases.push(seen.size);
        if (count === 0) this.emptyItems[pass]!++;
        else if (count < benchmark.sampling.n) this.shortItems[pass]!++;
      }
    });
    this.itemCount = this.itemId.length;
    this.lengths = [...this.maps.keys()].sort((x, y) => y - x);
    this.powA = new Int32Array(longest + 1);
    this.powB = new Int32Array(longest + 1);
    this.powA[0] = 1;
    this.powB[0] = 1;
    for (let k = 1; k <= longest; k++) {
      this.powA[k] = Math.imul(this.powA[k - 1]!, BASE_A);
      this.powB[k] = Math.imul(this.powB[k - 1]!, BASE_B);
    }
    this.itemHits = new Int32Array(this.itemCount);
    this.itemStamp = new Int32Array(this.itemCount);
    this.phraseStamp = new Int32Array(this.phraseItem.length);
  }

  /** Phrases of each pass, for the report. */
  phrasesPerPass(): number[] {
    const counts = this.passNames.map(() => 0);
    for (let p = 0; p < this.phraseItem.length; p++) counts[this.itemPass[this.phraseItem[p]!]!]!++;
    return counts;
  }

  /**
   * Scans one sample's text: the first pass (in chain order) with an item whose distinct phrases
   * found reach the threshold share, and within it the item with the most hits; null if none.
   */
  scan(raw: string): PhraseMatch | null {
    const text = normalize(raw);
    const count = splitWords(text, this.spans);
    if (count === 0 || this.phraseItem.length === 0) return null;
    const { hashA, hashB, starts, ends } = this.spans;
    if (this.prefixA.length <= count) {
      this.prefixA = new Int32Array(2 * count + 1);
      this.prefixB = new Int32Array(2 * count + 1);
    }
    const pa = this.prefixA;
    const pb = this.prefixB;
    for (let k = 0; k < count; k++) {
      pa[k + 1] = (Math.imul(pa[k]!, BASE_A) + hashA[k]!) | 0;
      pb[k + 1] = (Math.imul(pb[k]!, BASE_B) + hashB[k]!) | 0;
    }
    this.stamp++;
    if (this.stamp === 0x7fffffff) this.resetStamps();
    const stamp = this.stamp;
    let touched: number[] | null = null;
    const found: number[] = [];
    for (const length of this.lengths) {
      if (length > count) continue;
      const map = this.maps.get(length)!;
      const pA = this.powA[length]!;
      const pB = this.powB[length]!;
      for (let i = 0; i + length <= count; i++) {
        const a = (pa[i + length]! - Math.imul(pa[i]!, pA)) | 0;
        const b = (pb[i + length]! - Math.imul(pb[i]!, pB)) | 0;
        let id = map.get(key(a, b));
        if (id === undefined) continue;
        const window = wordsOf(text.slice(starts[i], ends[i + length - 1]));
        for (; id !== -1; id = this.phraseNext[id]!) {
          if (this.phraseStamp[id] === stamp || this.phraseText[id] !== window) continue;
          this.phraseStamp[id] = stamp;
          found.push(id);
          const item = this.phraseItem[id]!;
          if (this.itemStamp[item] !== stamp) {
            this.itemStamp[item] = stamp;
            this.itemHits[item] = 0;
            (touched ??= []).push(item);
          }
          this.itemHits[item]!++;
        }
      }
    }
    if (touched === null) return null;
    let best = -1;
    for (const item of touched) {
      if (this.itemHits[item]! < this.threshold * this.itemPhrases[item]!) continue;
      if (best < 0) best = item;
      else {
        const [p, q] = [this.itemPass[item]!, this.itemPass[best]!];
        if (p < q || (p === q && (this.itemHits[item]! > this.itemHits[best]! || (this.itemHits[item] === this.itemHits[best] && item < best)))) best = item;
      }
    }
    if (best < 0) return null;
    const matched: Array<{ order: number; text: string }> = [];
    for (const id of found) if (this.phraseItem[id] === best) matched.push({ order: this.phraseOrder[id]!, text: this.phraseText[id]! });
    matched.sort((x, y) => x.order - y.order);
    const pass = this.itemPass[best]!;
    return { pass, benchmark: this.passNames[pass]!, itemId: this.itemId[best]!, hits: this.itemHits[best]!, phrases: this.itemPhrases[best]!, matched: matched.map((m) => m.text) };
  }

  private resetStamps(): void {
    this.itemStamp.fill(0);
    this.phraseStamp.fill(0);
    this.stamp = 1;
  }
}

/** A phrase's canonical form: its words joined by one space (the text between them is not part of it). */
function wordsOf(slice: string): string {
  const spans = newSpans(16);
  const n = splitWords(slice, spans);
  let out = '';
  for (let k = 0; k < n; k++) out += (k === 0 ? '' : ' ') + slice.slice(spans.starts[k], spans.ends[k]);
  return out;
}
