/**
 * The part of a response that is graded: the text after the last `</think>`. A response that opens
 * `<think>` and never closes it has no final answer (null): the model ran out of budget mid-thought.
 */
export function finalText(response: string): string | null {
  const close = response.lastIndexOf('</think>');
  if (close >= 0) return response.slice(close + '</think>'.length);
  if (response.includes('<think>')) return null;
  return response;
}

/**
 * The content of the last top-level `\boxed{…}` (or `\fbox{…}`) with balanced braces, or null.
 * Boxes nested in a box are part of it, and a box that only wraps another box
 * (`\boxed{\boxed{3}}`) is unwrapped to its content.
 */
export function lastBoxed(text: string): string | null {
  const braces = new Braces(text);
  const macro = /\\(?:boxed|fbox)\s*\{/g;
  /** The last box's content, as [start, end) in `text`. */
  let found: [number, number] | null = null;
  let m: RegExpExecArray | null;
  while ((m = macro.exec(text)) !== null) {
    const open = m.index + m[0].length - 1;
    const close = braces.closing(open);
    if (close < 0) continue;
    found = [open + 1, close];
    macro.lastIndex = close + 1;
  }
  const inner = /\s*\\(?:boxed|fbox)\s*\{/y;
  while (found !== null) {
    inner.lastIndex = found[0];
    const wrapped = inner.exec(text);
    if (!wrapped || inner.lastIndex > found[1]) break;
    const close = braces.closing(inner.lastIndex - 1);
    if (close < 0 || close >= found[1] || text.slice(close + 1, found[1]).trim() !== '') break;
    found = [inner.lastIndex, close];
  }
  return found === null ? null : text.slice(found[0], found[1]);
}

/**
 * The closing braces of a text's boxes, looked up in increasing order. Each `{` is scanned for on its
 * own while they close; after the first that does not (scanned to the end of the text), one pass
 * from it pairs every brace after it, where scanning each later box to the end again was quadratic
 * in a text of many unclosed boxes, or of boxes nested thousands deep.
 */
class Braces {
  private paired: Int32Array | null = null;
  private from = 0;

  constructor(private readonly text: string) {}

  /** What `closingBrace` answers for the `{` at `open`, which is not escaped. */
  closing(open: number): number {
    if (this.paired !== null && open >= this.from) return this.paired[open - this.from]!;
    const close = closingBrace(this.text, open);
    if (close < 0 || close - open > PAIR_PAST) this.pair(open);
    return close;
  }

  private pair(from: number): void {
    const text = this.text;
    const paired = new Int32Array(text.length - from).fill(-1);
    const open: number[] = [];
    for (let i = from; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) i++; // a backslash escapes the next character, as closingBrace reads it
      else if (c === 0x7b) open.push(i);
      else if (c === 0x7d && open.length > 0) paired[open.pop()! - from] = i;
    }
    this.paired = paired;
    this.from = from;
  }
}

/** A box this long may hold many more: its braces are paired in one pass from then on. */
const PAIR_PAST = 4096;

/** The index of the `}` matching the `{` at `open` (a backslash escapes the next character); -1 when unbalanced. */
function closingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/**
 * True when a box's content holds nothing: spaces, LaTeX spacing, empty braces or `\text{}`, dollars.
 * An empty final box states no answer, and nothing elsewhere in the text stands in for it.
 */
export function isEmptyBox(content: string): boolean {
  return content.replace(/\s+|\\[,;:! ]|\\q?quad\b|\\(?:text|mathrm|mbox)\s*\{\s*\}|[{}$]/g, '') === '';
}

/** The content between the `{` at `open` and its matching `}`; null when unbalanced. */
export function balancedGroup(text: string, open: number): string | null {
  const close = closingBrace(text, open);
  return close < 0 ? null : text.slice(open + 1, close);
}
