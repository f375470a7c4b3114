import { memo } from './memo';

/**
 * The distinct character trigrams of a text — code points, as Python's `s[i:i+3]` — for
 * `ratio:overlap`. An open-addressing hash table of code-point triples in one Int32Array: a
 * JavaScript Set of trigram keys (numbers or strings) cost most of that checker's time.
 */
export class Trigrams {
  /** Three code points per slot; a first code point of -1 marks an empty slot. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  /** Where each distinct trigram sits in `slots`, in first-seen order. */
  private readonly filled: number[] = [];

  constructor(text: string) {
    const codePoints: number[] = [];
    for (let i = 0; i < text.length; i++) {
      const codePoint = text.codePointAt(i) as number;
      if (codePoint > 0xffff) i++;
      codePoints.push(codePoint);
    }
    let capacity = 16;
    while (capacity < 2 * codePoints.length) capacity <<= 1;
    this.slots = new Int32Array(3 * capacity).fill(-1);
    this.mask = capacity - 1;
    for (let i = 0; i + 2 < codePoints.length; i++) {
      const a = codePoints[i] as number;
      const b = codePoints[i + 1] as number;
      const c = codePoints[i + 2] as number;
      const slot = this.find(a, b, c);
      if (this.slots[3 * slot] === -1) {
        this.slots[3 * slot] = a;
        this.slots[3 * slot + 1] = b;
        this.slots[3 * slot + 2] = c;
        this.filled.push(slot);
      }
    }
  }

  get size(): number {
    return this.filled.length;
  }

  /** How many of this text's distinct trigrams `other` also has. */
  sharedWith(other: Trigrams): number {
    let shared = 0;
    for (const slot of this.filled) {
      const a = this.slots[3 * slot] as number;
      const b = this.slots[3 * slot + 1] as number;
      const c = this.slots[3 * slot + 2] as number;
      if (other.slots[3 * other.find(a, b, c)] !== -1) shared++;
    }
    return shared;
  }

  /** The slot holding (a, b, c), or the empty slot where it would go. */
  private find(a: number, b: number, c: number): number {
    const slots = this.slots;
    let slot = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ Math.imul(c, 0xc2b2ae3d)) & this.mask;
    for (;;) {
      const at = 3 * slot;
      if (slots[at] === -1 || (slots[at] === a && slots[at + 1] === b && slots[at + 2] === c)) return slot;
      slot = (slot + 1) & this.mask;
    }
  }
}

/** Memoized: the loose variants of a response are all compared with the same reference text. */
export const trigrams: (text: string) => Trigrams = memo((text) => new Trigrams(text));
