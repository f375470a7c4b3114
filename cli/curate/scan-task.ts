import type { Screen, ScreenMatch, ScreenSpec } from '../../curate/screen';
import { rowText } from '../../curate/text';
import { parseJsonLine } from '../dataset/read';

/** What each scan thread is started with. */
export interface ScanInit {
  spec: ScreenSpec;
  textFields: string[] | null;
}

/** A chunk: texts to screen, or raw JSONL lines (parsed and read where the chunk is scanned). */
export type ScanTask = { texts: string[] } | { lines: string[] };

/** Per text or line: the match, null, or why the line is not a JSON object. */
export type ScanOutcome = ScreenMatch | null | { error: string };

/** One chunk's scan, the same on a worker thread and on the main thread (--workers 0). */
export function runScanTask(screen: Screen, task: ScanTask, textFields: string[] | null): ScanOutcome[] {
  if ('texts' in task) return task.texts.map((text) => screen.scan(text));
  return task.lines.map((line) => {
    const row = parseJsonLine(line, 0);
    return 'error' in row ? { error: row.error } : screen.scan(rowText(row.value, textFields));
  });
}
