import { memo, memoizesParts } from './memo';

/**
 * A count over a text that is the sum of its lines' counts: what it counts never crosses a
 * newline (\w runs, whitespace-separated words). Loose mode checks the response less its first
 * line, its last line or both, so in a loose scope each line is counted once, memoized, and the
 * variants add up the counts of lines they share; elsewhere the text is counted whole.
 */
export function countByLines(count: (text: string) => number): (text: string) => number {
  const perLine = memo(count, 'part');
  return (text) => {
    if (!memoizesParts() || !text.includes('\n')) return count(text);
    let total = 0;
    let start = 0;
    for (;;) {
      const end = text.indexOf('\n', start);
      if (end < 0) return total + perLine(text.slice(start));
      total += perLine(text.slice(start, end));
      start = end + 1;
    }
  };
}
