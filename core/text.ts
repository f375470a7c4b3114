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
  let found: string | null = null;
  const macro = /\\(?:boxed|fbox)\s*\{/g;
  let m: RegExpExecArray | null;
  while ((m = macro.exec(text)) !== null) {
    const open = m.index + m[0].length - 1;
    const content = balancedGroup(text, open);
    if (content === null) continue;
    found = content;
    macro.lastIndex = open + content.length + 2;
  }
  while (found !== null) {
    const inner = /^\s*\\(?:boxed|fbox)\s*\{/.exec(found);
    if (!inner) break;
    const content = balancedGroup(found, inner[0].length - 1);
    if (content === null || found.slice(inner[0].length + content.length + 1).trim() !== '') break;
    found = content;
  }
  return found;
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
      if (depth === 0) return text.slice(open + 1, i);
    }
  }
  return null;
}
