/** An opening fence, its info string after it (no backtick may follow the fence on its line). */
const OPEN = /^( {0,3})(`{3,}|~{3,})(?![^`]*`)[ \t]*([^\s`]*)/;
const CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;
const PYTHON = new Set(['python', 'py', 'python3']);

/**
 * The last fenced code block labelled python (`python`, `py`, `python3`, any case), or null.
 * Fences follow CommonMark: up to three spaces of indent, ``` or ~~~ (three or more), closed by
 * a fence of the same character at least as long; fences do not nest, so a ```python line inside
 * a ```markdown block is content; an unclosed block runs to the end of the text. An unlabelled
 * fence is not code.
 */
export function lastPythonBlock(text: string): string | null {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let last: string | null = null;
  let open: { fence: string; indent: number; python: boolean; body: string[] } | null = null;
  for (const line of lines) {
    if (open) {
      const close = CLOSE.exec(line);
      if (close && close[1]![0] === open.fence[0] && close[1]!.length >= open.fence.length) {
        if (open.python) last = open.body.join('\n');
        open = null;
      } else {
        open.body.push(dedent(line, open.indent));
      }
      continue;
    }
    const m = OPEN.exec(line);
    if (m) open = { fence: m[2]!, indent: m[1]!.length, python: PYTHON.has(m[3]!.toLowerCase()), body: [] };
  }
  if (open?.python) last = open.body.join('\n');
  return last;
}

/** `line` without up to `indent` leading spaces (the opening fence's indent, CommonMark). */
function dedent(line: string, indent: number): string {
  let i = 0;
  while (i < indent && line.charCodeAt(i) === 0x20) i++;
  return i === 0 ? line : line.slice(i);
}
