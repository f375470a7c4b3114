import { isJsonObject, type Json, type JsonObject } from '../core/json';

/**
 * How curation reads text: what a word is, and which text of a row is screened. One definition for
 * decontamination's phrases and for the code form, so a benchmark item and a training sample are
 * always read the same way. Pure and allocation-light: the scan runs over millions of samples.
 *
 * Normalization: Unicode NFKC (full-width letters, ligatures and compatibility digits become their
 * plain forms: `ｆｕｌｌ` = `full`, `ﬁ` = `fi`, `²` = `2`), then lower case.
 *
 * A word is a maximal run of letters, combining marks and digits (any script). Everything else
 * separates words: spaces, punctuation, symbols, LaTeX's backslashes and braces (`\frac{1}{2}` is the
 * words `frac 1 2`, `x^2+y^2` is `x 2 y 2`), apostrophes (`don't` is `don t`). Han, Hiragana and
 * Katakana characters are a word each, since those scripts do not separate words by spaces.
 */

const SEPARATOR = 0;
const WORD = 1;
const SINGLE = 2;

/** The class of every BMP code unit, built once. Surrogates (astral characters) count as letters. */
const CLASS = buildClasses();

function buildClasses(): Uint8Array {
  const table = new Uint8Array(65536);
  const word = /[\p{L}\p{M}\p{N}]/u;
  const single = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
  for (let c = 0; c < 65536; c++) {
    if (c >= 0xd800 && c <= 0xdfff) table[c] = WORD;
    else {
      const ch = String.fromCharCode(c);
      table[c] = single.test(ch) ? SINGLE : word.test(ch) ? WORD : SEPARATOR;
    }
  }
  return table;
}

// eslint-disable-next-line no-control-regex
const ASCII = /^[\x00-\x7f]*$/;

/** NFKC and lower case; ASCII text (NFKC's identity) skips the normalization pass. */
export function normalize(text: string): string {
  return (ASCII.test(text) ? text : text.normalize('NFKC')).toLowerCase();
}

/**
 * The words of normalized text as offsets: word k is `text.slice(starts[k], ends[k])`. Returns the
 * count; the arrays grow as needed and are reused between calls by the caller.
 */
export interface WordSpans {
  count: number;
  starts: Int32Array;
  ends: Int32Array;
  /** Two independent 32-bit hashes of each word (FNV-1a and a multiplicative hash). */
  hashA: Int32Array;
  hashB: Int32Array;
}

export function newSpans(capacity = 1024): WordSpans {
  return { count: 0, starts: new Int32Array(capacity), ends: new Int32Array(capacity), hashA: new Int32Array(capacity), hashB: new Int32Array(capacity) };
}

function grow(spans: WordSpans): void {
  const size = spans.starts.length * 2;
  const copy = (a: Int32Array) => {
    const b = new Int32Array(size);
    b.set(a);
    return b;
  };
  spans.starts = copy(spans.starts);
  spans.ends = copy(spans.ends);
  spans.hashA = copy(spans.hashA);
  spans.hashB = copy(spans.hashB);
}

/** Splits normalized text into words, hashing each on the way (one pass, no substrings). */
export function splitWords(text: string, spans: WordSpans): number {
  let count = 0;
  let start = -1;
  let a = 0;
  let b = 0;
  const push = (end: number) => {
    if (count === spans.starts.length) grow(spans);
    spans.starts[count] = start;
    spans.ends[count] = end;
    spans.hashA[count] = a;
    spans.hashB[count] = b;
    count++;
    start = -1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const kind = CLASS[c]!;
    if (kind === WORD) {
      if (start < 0) {
        start = i;
        a = 0x811c9dc5;
        b = 0x2f5e1b3d;
      }
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b + c, 0x5bd1e995) ^ (b >>> 15);
    } else {
      if (start >= 0) push(i);
      if (kind === SINGLE) {
        start = i;
        a = Math.imul(0x811c9dc5 ^ c, 0x01000193);
        b = Math.imul(0x2f5e1b3d + c, 0x5bd1e995);
        push(i + 1);
      }
    }
  }
  if (start >= 0) push(text.length);
  spans.count = count;
  return count;
}

/** The words of a text as strings (normalized): for benchmark items, tests and reports, not the hot loop. */
export function words(text: string): string[] {
  const normalized = normalize(text);
  const spans = newSpans(64);
  const n = splitWords(normalized, spans);
  const out: string[] = new Array(n);
  for (let k = 0; k < n; k++) out[k] = normalized.slice(spans.starts[k], spans.ends[k]);
  return out;
}

/**
 * The text of a row that is screened: every string in it, depth first in key order, joined by
 * newlines — all turns of any chat layout (system, user, assistant, tool messages and tool calls)
 * without naming one. `fields` (dotted paths) narrows it to those values, in the order given.
 */
export function rowText(row: Json, fields: readonly string[] | null): string {
  const parts: string[] = [];
  if (fields === null) collectStrings(row, parts);
  else for (const field of fields) collectStrings(at(row, field), parts);
  return parts.join('\n');
}

/**
 * A benchmark item's text when no field is named: its first field among the usual names of a
 * problem statement, else every string of the row but its id. Ids, answers and metadata are
 * left out where the row names its question, since words no training sample holds would only
 * lower the share of an item's phrases that can be found.
 */
export const ITEM_TEXT_FIELDS = ['question', 'problem', 'prompt', 'instruction', 'text', 'content', 'messages', 'conversations'] as const;

export function itemText(row: Json, idField: string): string {
  return promptText(row, idField).text;
}

/** Said for a row none of whose fields is among ITEM_TEXT_FIELDS. */
export const EVERY_STRING_BUT_ID = '(every string but the id)';

/** `itemText` with the field it came from (`prompt`, or EVERY_STRING_BUT_ID), for a summary to name. */
export function promptText(row: Json, idField: string): { text: string; field: string } {
  if (isJsonObject(row)) {
    for (const field of ITEM_TEXT_FIELDS) if (row[field] !== undefined && row[field] !== null) return { text: rowText(row[field]!, null), field };
    const rest: JsonObject = { ...row };
    delete rest[idField];
    return { text: rowText(rest, null), field: EVERY_STRING_BUT_ID };
  }
  return { text: rowText(row, null), field: EVERY_STRING_BUT_ID };
}

export function at(value: Json | undefined, path: string): Json | undefined {
  let current = value;
  for (const key of path.split('.')) {
    if (!isJsonObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

function collectStrings(value: Json | undefined, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, out);
  else if (isJsonObject(value)) for (const key of Object.keys(value)) collectStrings(value[key], out);
}

/** Lower case with every run of whitespace one space, trimmed: the dedup key's and the code form's text. */
export function collapseWhitespace(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}
