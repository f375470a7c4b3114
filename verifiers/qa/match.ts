import { distance } from 'fastest-levenshtein';
import { touchedAffix } from './affixes';
import type { Token } from './tokens';

/** Words of this many characters or fewer must match exactly: units, symbols, numerals, `not`. */
export const SHORT_WORD = 4;

/** How an answer compares with one reference, token by token (see README "qa"). */
export type FreeTextMatch =
  /** Same tokens, or the same words written with other spacing or hyphens. */
  | { kind: 'exact' }
  /** Same numbers and symbols in the same order; long words differ by spelling slips only. */
  | { kind: 'fuzzy'; similarity: number }
  | { kind: 'wrong'; similarity: number; mismatch: string };

/** 1 − edit distance / longer length: 1 for equal strings, 0 for nothing in common. */
export function similarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  return longest === 0 ? 1 : 1 - distance(a, b) / longest;
}

type Slip = { ok: true; edits: number } | { ok: false; why: string };

/**
 * Whether two words (or runs of words joined, for spacing) may be one spelling apart: neither is
 * a name or code (`Token.exact`), both are longer than SHORT_WORD, their similarity reaches the
 * threshold, and the edit touches no meaningful prefix or suffix (./affixes).
 */
function slip(a: readonly Token[], b: readonly Token[], threshold: number): Slip {
  const x = a.map((t) => t.text).join('');
  const y = b.map((t) => t.text).join('');
  if (x === y) return { ok: true, edits: 0 };
  const shown = `'${x}' vs '${y}'`;
  if ([...a, ...b].some((t) => t.kind === 'word' && t.exact)) return { ok: false, why: `name or code ${shown} differs` };
  if (Math.min(x.length, y.length) <= SHORT_WORD) return { ok: false, why: `short word ${shown} differs` };
  const longest = Math.max(x.length, y.length);
  // Lengths alone can rule it out, before a distance over a hostile megabyte-long word.
  if (Math.abs(x.length - y.length) > (1 - threshold) * longest) return { ok: false, why: `word ${shown} differs` };
  const edits = distance(x, y);
  if (1 - edits / longest < threshold) return { ok: false, why: `word ${shown} differs` };
  const affix = touchedAffix(x, y);
  if (affix !== null) return { ok: false, why: `word ${shown} differs in ${affix}` };
  return { ok: true, edits };
}

/** Steps of the alignment: how many tokens of each side one step takes (several = words joined). */
const STEPS: ReadonlyArray<readonly [number, number]> = [[1, 1], [1, 2], [1, 3], [2, 1], [3, 1]];
/** Past this many cells the alignment takes one token of each side a step (no joins). */
const MAX_CELLS = 1 << 22;

const isWords = (tokens: readonly Token[], from: number, count: number): boolean => {
  for (let k = from; k < from + count; k++) if (tokens[k]?.kind !== 'word') return false;
  return true;
};

const letters = (tokens: readonly Token[]): number => tokens.reduce((n, t) => n + (t.kind === 'word' ? t.text.length : 0), 0);

/**
 * The cheapest alignment of the two token sequences: numbers and symbols only with equal ones, words
 * (or up to three joined, for spacing and hyphens) only by `slip`; nothing inserted or dropped.
 * Returns its edits, or null when there is none.
 */
function align(a: readonly Token[], b: readonly Token[], threshold: number): number | null {
  const n = a.length;
  const m = b.length;
  if (n > 3 * m || m > 3 * n) return null;
  const steps = (n + 1) * (m + 1) > MAX_CELLS ? STEPS.slice(0, 1) : STEPS;
  if (steps.length === 1 && n !== m) return null;
  const cost = new Float64Array((n + 1) * (m + 1)).fill(Infinity);
  cost[0] = 0;
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= m; j++) {
      const here = cost[i * (m + 1) + j]!;
      if (here === Infinity) continue;
      for (const [di, dj] of steps) {
        if (i + di > n || j + dj > m) continue;
        let edits: number;
        if (di === 1 && dj === 1 && (a[i]!.kind !== 'word' || b[j]!.kind !== 'word')) {
          if (a[i]!.kind !== b[j]!.kind || a[i]!.text !== b[j]!.text) continue;
          edits = 0;
        } else {
          if (!isWords(a, i, di) || !isWords(b, j, dj)) continue;
          const s = slip(a.slice(i, i + di), b.slice(j, j + dj), threshold);
          if (!s.ok) continue;
          edits = s.edits;
        }
        const cell = (i + di) * (m + 1) + j + dj;
        if (here + edits < cost[cell]!) cost[cell] = here + edits;
      }
    }
  }
  const total = cost[n * (m + 1) + m]!;
  return total === Infinity ? null : total;
}

const ofKind = (tokens: readonly Token[], kind: Token['kind']): string[] => tokens.filter((t) => t.kind === kind).map((t) => t.text);

/** Why an answer does not match: the first of numbers, symbols, words that differ. */
function explain(a: readonly Token[], b: readonly Token[], threshold: number): string {
  for (const kind of ['number', 'symbol'] as const) {
    const x = ofKind(a, kind);
    const y = ofKind(b, kind);
    if (x.join(' ') !== y.join(' ')) return `${kind}s differ: [${x.join(', ')}] vs [${y.join(', ')}]`;
  }
  const x = a.filter((t) => t.kind === 'word');
  const y = b.filter((t) => t.kind === 'word');
  if (x.length === y.length) {
    for (let k = 0; k < x.length; k++) {
      const s = slip([x[k]!], [y[k]!], threshold);
      if (!s.ok) return s.why;
    }
    return 'words in another order or too many slips';
  }
  return `words differ: [${x.map((t) => t.text).join(' ')}] vs [${y.map((t) => t.text).join(' ')}]`;
}

/**
 * Compares an answer with one reference. The answer matches when its numbers (by value) and symbols
 * equal the reference's in order, each of its words is the reference's word or one spelling slip
 * from it (`slip`), and the slips together keep the similarity over all letters at the threshold.
 */
export function compareAnswer(answer: readonly Token[], reference: readonly Token[], threshold: number): FreeTextMatch {
  const edits = align(answer, reference, threshold);
  if (edits === 0) return { kind: 'exact' };
  if (edits !== null) {
    const longest = Math.max(letters(answer), letters(reference));
    const s = longest === 0 ? 1 : 1 - edits / longest;
    if (s >= threshold) return { kind: 'fuzzy', similarity: s };
    return { kind: 'wrong', similarity: s, mismatch: 'too many spelling slips' };
  }
  const plain = similarity(answer.map((t) => t.text).join(' '), reference.map((t) => t.text).join(' '));
  return { kind: 'wrong', similarity: plain, mismatch: explain(answer, reference, threshold) };
}
