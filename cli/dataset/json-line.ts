// One JSONL line → an input row, or why it is not one. Its own module: pool threads parse lines
// too (pool-rows.ts) and need none of the readers' streams.
import { isJsonObject } from '../../core/json';
import type { InputRow } from './rows';

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** Said after the error of a line that opens a JSON array: the file is one JSON document, not JSON Lines. */
const ARRAY_HINT = ' (JSONL expected, one object a line; this looks like a JSON array: convert it with jq -c \'.[]\' FILE > FILE.jsonl)';

export function parseJsonLine(text: string, line: number): InputRow {
  let value: unknown;
  // Looked at only for an error's sake: every row of a large file passes here.
  const hint = () => (text.trimStart().startsWith('[') ? ARRAY_HINT : '');
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { line, error: `not valid JSON (${(error as Error).message})${hint()}` };
  }
  if (!isJsonObject(value)) return { line, error: `expected a JSON object, received ${describe(value)}${hint()}` };
  return { line, value, text };
}

