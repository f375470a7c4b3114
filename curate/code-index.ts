import { createHash } from 'node:crypto';
import { collapseWhitespace } from './text';

/**
 * The code form of the screen, as the recipe runs Coding RL against LiveCodeBench: a training
 * problem is removed when the SHA-256 of its first 400 characters equals a benchmark problem's, or
 * when it shares at least 5 distinct character 60-grams with one. Both sides are read as
 * `collapseWhitespace` text (lower case, whitespace runs one space, trimmed), so re-indented or
 * re-wrapped statements still meet. Character n-grams are looked up by rolling hash and then
 * compared character by character: a collision never removes a sample.
 */

export interface CodeForm {
  prefixChars: number;
  n: number;
  minShared: number;
}

export interface CodeBenchmark {
  name: string;
  items: ReadonlyArray<{ id: string; text: string }>;
}

export interface CodeMatch {
  pass: number;
  benchmark: string;
  itemId: string;
  rule: 'prefix' | 'ngrams';
  /** Distinct n-grams shared with the item (0 for a prefix match found first). */
  shared: number;
  /** Up to five of the shared n-grams, for review. */
  matched: string[];
}

const BASE_A = 0x01000193;
const BASE_B = 0x5bd1e995;

export class CodeIndex {
  private readonly prefixes = new Map<string, number>();
  private readonly grams = new Map<number, number>();
  private readonly gramItem: number[] = [];
  private readonly gramOffset: number[] = [];
  private readonly gramNext: number[] = [];
  private readonly itemText: string[] = [];
  private readonly itemPass: number[] = [];
  private readonly itemId: string[] = [];
  private readonly passNames: string[];
  private readonly pow: [number, number];
  private readonly itemHits: Int32Array;
  private readonly itemStamp: Int32Array;
  private readonly gramStamp: Int32Array;
  private stamp = 0;
  /** Items shorter than n characters (screened by their prefix only), per pass. */
  readonly shortItems: number[];
  /** Items with no text, per pass. */
  readonly emptyItems: number[];

  constructor(
    benchmarks: readonly CodeBenchmark[],
    private readonly form: CodeForm,
  ) {
    this.passNames = benchmarks.map((b) => b.name);
    this.shortItems = benchmarks.map(() => 0);
    this.emptyItems = benchmarks.map(() => 0);
    this.pow = [power(BASE_A, form.n), power(BASE_B, form.n)];
    benchmarks.forEach((benchmark, pass) => {
      for (const item of benchmark.items) {
        const text = collapseWhitespace(item.text);
        const index = this.itemText.length;
        this.itemText.push(text);
        this.itemPass.push(pass);
        this.itemId.push(item.id);
        if (text.length === 0) this.emptyItems[pass]!++;
        else if (text.length < form.n) this.shortItems[pass]!++;
        const prefix = sha256(text.slice(0, form.prefixChars));
        if (text.length > 0 && !this.prefixes.has(prefix)) this.prefixes.set(prefix, index);
        const own = new Set<string>();
        this.eachGram(text, (offset, k) => {
          const gram = text.substr(offset, form.n);
          if (own.has(gram)) return;
          own.add(gram);
          const id = this.gramItem.length;
          this.gramItem.push(index);
          this.gramOffset.push(offset);
          this.gramNext.push(this.grams.get(k) ?? -1);
          this.grams.set(k, id);
        });
      }
    });
    this.itemHits = new Int32Array(this.itemText.length);
    this.itemStamp = new Int32Array(this.itemText.length);
    this.gramStamp = new Int32Array(this.gramItem.length);
  }

  gramsPerPass(): number[] {
    const counts = this.passNames.map(() => 0);
    for (const item of this.gramItem) counts[this.itemPass[item]!]!++;
    return counts;
  }

  scan(raw: string): CodeMatch | null {
    const text = collapseWhitespace(raw);
    if (text.length === 0) return null;
    const prefixItem = this.prefixes.get(sha256(text.slice(0, this.form.prefixChars)));
    this.stamp++;
    const stamp = this.stamp;
    const touched: number[] = [];
    const found: number[] = [];
    this.eachGram(text, (offset, k) => {
      for (let id = this.grams.get(k) ?? -1; id !== -1; id = this.gramNext[id]!) {
        if (this.gramStamp[id] === stamp) continue;
        const item = this.gramItem[id]!;
        if (this.itemText[item]!.substr(this.gramOffset[id]!, this.form.n) !== text.substr(offset, this.form.n)) continue;
        this.gramStamp[id] = stamp;
        found.push(id);
        if (this.itemStamp[item] !== stamp) {
          this.itemStamp[item] = stamp;
          this.itemHits[item] = 0;
          touched.push(item);
        }
        this.itemHits[item]!++;
      }
    });
    let best = -1;
    let rule: CodeMatch['rule'] = 'ngrams';
    for (const item of touched) {
      if (this.itemHits[item]! < this.form.minShared) continue;
      if (best < 0 || this.itemPass[item]! < this.itemPass[best]! || (this.itemPass[item] === this.itemPass[best] && this.itemHits[item]! > this.itemHits[best]!)) best = item;
    }
    if (prefixItem !== undefined && (best < 0 || this.itemPass[prefixItem]! <= this.itemPass[best]!)) {
      best = prefixItem;
      rule = 'prefix';
    }
    if (best < 0) return null;
    const shared = this.itemStamp[best] === stamp ? this.itemHits[best]! : 0;
    const matched = found.filter((id) => this.gramItem[id] === best).slice(0, 5).map((id) => this.itemText[best]!.substr(this.gramOffset[id]!, this.form.n));
    const pass = this.itemPass[best]!;
    return { pass, benchmark: this.passNames[pass]!, itemId: this.itemId[best]!, rule, shared, matched };
  }

  /** Calls `visit(offset, key)` for every n-character window, keys from rolling hashes. */
  private eachGram(text: string, visit: (offset: number, key: number) => void): void {
    const n = this.form.n;
    if (text.length < n) return;
    let a = 0;
    let b = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = (Math.imul(a, BASE_A) + c) | 0;
      b = (Math.imul(b, BASE_B) + c) | 0;
      if (i >= n) {
        const out = text.charCodeAt(i - n);
        a = (a - Math.imul(out, this.pow[0])) | 0;
        b = (b - Math.imul(out, this.pow[1])) | 0;
      }
      if (i >= n - 1) visit(i - n + 1, (a >>> 11) * 0x100000000 + (b >>> 0));
    }
  }
}

function power(base: number, exponent: number): number {
  let p = 1;
  for (let k = 0; k < exponent; k++) p = Math.imul(p, base);
  return p;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
