// Characters are read as `charCodeAt.call(s, i)`: see rubrics/text/py.ts.
const charCodeAt = String.prototype.charCodeAt;
const codePointAt = String.prototype.codePointAt;

/**
 * The code point at `i`, plus one (as the tables store them). The UTF-16 unit unless it starts a
 * surrogate pair: a code-point read of every unit was slower.
 */
function codePointPlusOne(text: string, i: number): number {
  const unit = charCodeAt.call(text, i);
  if (unit < 0xd800 || unit > 0xdbff) return unit + 1;
  return (codePointAt.call(text, i) as number) + 1;
}

/** The hash of the trigram (a, b, c), each code point stored + 1; a table takes its low bits. */
function trigramHash(a: number, b: number, c: number): number {
  return Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ Math.imul(c, 0xc2b2ae3d);
}

/**
 * The distinct character trigrams of a text — code points, as Python's `s[i:i+3]` — for
 * `ratio:overlap`. An open-addressing hash table of code-point triples in one Int32Array: a
 * JavaScript Set of trigram keys (numbers or strings) cost most of that checker's time.
 */
export class Trigrams {
  /**
   * Three code points per slot, each stored + 1 so that a fresh (zeroed) array is all empty
   * slots; a first entry of 0 marks an empty slot.
   */
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(text: string) {
    let capacity = 16;
    // At most one trigram per UTF-16 unit: a table twice that size stays at most half full.
    while (capacity < 2 * text.length) capacity <<= 1;
    this.slots = new Int32Array(3 * capacity);
    this.mask = capacity - 1;
    let a = 0;
    let b = 0;
    let seen = 0;
    for (let i = 0, length = text.length; i < length; i++) {
      const c = codePointPlusOne(text, i);
      if (c > 0x10000) i++;
      if (++seen >= 3) {
        const slot = this.find(a, b, c, trigramHash(a, b, c));
        if (this.slots[3 * slot] === 0) {
          this.slots[3 * slot] = a;
          this.slots[3 * slot + 1] = b;
          this.slots[3 * slot + 2] = c;
        }
      }
      a = b;
      b = c;
    }
  }

  /**
   * Whether the text has the trigram of code points (a, b, c), each stored + 1 as in `slots`;
   * `hash` is its `trigramHash`.
   */
  hasStored(a: number, b: number, c: number, hash: number): boolean {
    return this.slots[3 * this.find(a, b, c, hash)] !== 0;
  }

  /** The slot holding (a, b, c), or the empty slot where it would go. */
  private find(a: number, b: number, c: number, hash: number): number {
    const slots = this.slots;
    let slot = hash & this.mask;
    for (;;) {
      const at = 3 * slot;
      if (slots[at] === 0 || (slots[at] === a && slots[at + 1] === b && slots[at + 2] === c)) return slot;
      slot = (slot + 1) & this.mask;
    }
  }
}

/**
 * The table `sharedCounts` fills, kept from call to call: the checkers are synchronous, and
 * allocating a table per response was a fifth of `ratio:overlap`'s time. A slot counts only when
 * its stamp is the current call's, so the table is never cleared.
 */
const scratch = { slots: new Int32Array(0), stamps: new Int32Array(0), call: 0 };

/**
 * `new Trigrams(text)`'s size and how many of its trigrams `reference` has, in one pass and
 * without building a table for `text`.
 */
export function sharedCounts(text: string, reference: Trigrams): { distinct: number; shared: number } {
  let capacity = 16;
  while (capacity < 2 * text.length) capacity <<= 1;
  // A fresh table also when the stamps would pass what an Int32Array holds, and repeat.
  if (scratch.stamps.length < capacity || scratch.call === 0x7fffffff) {
    scratch.slots = new Int32Array(3 * Math.max(capacity, scratch.stamps.length));
    scratch.stamps = new Int32Array(Math.max(capacity, scratch.stamps.length));
    scratch.call = 0;
  }
  const call = ++scratch.call;
  const { slots, stamps } = scratch;
  const mask = capacity - 1;
  let distinct = 0;
  let shared = 0;
  let a = 0;
  let b = 0;
  let seen = 0;
  for (let i = 0, length = text.length; i < length; i++) {
    const c = codePointPlusOne(text, i);
    if (c > 0x10000) i++;
    if (++seen >= 3) {
      const hash = trigramHash(a, b, c);
      let slot = hash & mask;
      for (;;) {
        const at = 3 * slot;
        if (stamps[slot] !== call) {
          stamps[slot] = call;
          slots[at] = a;
          slots[at + 1] = b;
          slots[at + 2] = c;
          distinct++;
          if (reference.hasStored(a, b, c, hash)) shared++;
          break;
        }
        if (slots[at] === a && slots[at + 1] === b && slots[at + 2] === c) break;
        slot = (slot + 1) & mask;
      }
    }
    a = b;
    b = c;
  }
  return { distinct, shared };
}

/**
 * The reference texts' tables, kept across evaluations while their texts add up to at most
 * KEPT_UNITS: a reference text is a label's kwarg, the same for every response of a prompt's group
 * and every loose variant of one, and building its table was a fifth of ratio:overlap's time. A
 * table is a pure function of its text, so sharing one cannot change a verdict; the bound keeps
 * the memory to about 1.5 MB (a table takes 24 bytes or more per unit of its text).
 */
const KEPT_UNITS = 1 << 16;
const kept = new Map<string, Trigrams>();
let keptUnits = 0;

export function trigrams(text: string): Trigrams {
  let table = kept.get(text);
  if (table) return table;
  table = new Trigrams(text);
  if (text.length <= KEPT_UNITS) {
    // The oldest go first: a Map iterates in insertion order.
    for (const old of kept.keys()) {
      if (keptUnits + text.length <= KEPT_UNITS) break;
      kept.delete(old);
      keptUnits -= old.length;
    }
    kept.set(text, table);
    keptUnits += text.length;
  }
  return table;
}
