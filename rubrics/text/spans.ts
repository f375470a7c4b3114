// Characters are read as `charCodeAt.call(s, i)`: see rubrics/text/py.ts.
const charCodeAt = String.prototype.charCodeAt;

/**
 * Distinct substrings of one text, each given as a span of it, counted without building them:
 * checkers that count distinct words spent most of their time slicing each word and hashing it
 * into a Set. An open-addressing table of spans, compared by UTF-16 unit, so two spans are one
 * entry exactly when their strings are equal. The caller hashes each span (FNV-1a over its
 * units, `HASH_BASIS` then `hashStep` per unit) as it scans the text, in the same pass that finds
 * the span.
 */
export const HASH_BASIS = 0x811c9dc5 | 0;

export function hashStep(hash: number, unit: number): number {
  return Math.imul(hash ^ unit, 0x01000193);
}

export class DistinctSpans {
  private text = '';
  /** Per slot: the entry it holds, when its stamp is the current `reset`'s (never cleared). */
  private entries = new Int32Array(0);
  private stamps = new Int32Array(0);
  private hashes = new Int32Array(0);
  private stamp = 0;
  private mask = 0;
  /** Per entry, in the order they were added: the span. */
  private starts = new Int32Array(0);
  private ends = new Int32Array(0);
  size = 0;

  /** Empties the table for spans of `text`, at most `maxSpans` of them. */
  reset(text: string, maxSpans: number): void {
    let capacity = 16;
    // At most half full, so that probes stay short.
    while (capacity < 2 * maxSpans) capacity <<= 1;
    // Fresh arrays also when the stamps would pass what an Int32Array holds, and repeat.
    if (this.stamps.length < capacity || this.stamp === 0x7fffffff) {
      capacity = Math.max(capacity, this.stamps.length);
      this.entries = new Int32Array(capacity);
      this.stamps = new Int32Array(capacity);
      this.hashes = new Int32Array(capacity);
      this.starts = new Int32Array(capacity);
      this.ends = new Int32Array(capacity);
      this.stamp = 0;
    }
    this.text = text;
    this.mask = capacity - 1;
    this.stamp++;
    this.size = 0;
  }

  /**
   * The entry of `text.slice(start, end)`, whose hash is `hash`: the number of distinct spans
   * added before it, so a new one's is `size - 1` once it is added.
   */
  entry(start: number, end: number, hash: number): number {
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      if (this.stamps[slot] !== this.stamp) {
        const entry = this.size++;
        this.stamps[slot] = this.stamp;
        this.hashes[slot] = hash;
        this.entries[slot] = entry;
        this.starts[entry] = start;
        this.ends[entry] = end;
        return entry;
      }
      const entry = this.entries[slot] as number;
      if (this.hashes[slot] === hash && this.equal(this.starts[entry] as number, this.ends[entry] as number, start, end)) return entry;
    }
  }

  /** The text of an entry. */
  spanText(entry: number): string {
    return this.text.slice(this.starts[entry], this.ends[entry]);
  }

  private equal(start1: number, end1: number, start2: number, end2: number): boolean {
    if (end1 - start1 !== end2 - start2) return false;
    const text = this.text;
    for (let i = 0; i < end1 - start1; i++) if (charCodeAt.call(text, start1 + i) !== charCodeAt.call(text, start2 + i)) return false;
    return true;
  }
}
