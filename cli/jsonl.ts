import { isJsonObject } from '../core/json';
import { invalid, type Sample, type ScoreResult } from '../core/sample';
import { sampleFromJson } from '../services/wire/json';

/** A parsed input line: a sample to score, or a result already decided (the line itself is bad). */
export type LineItem = { sample: Sample } | { result: ScoreResult };

/** One JSONL line → a sample; a line that is not a sample still gets its one (INVALID) result. */
export function parseLine(line: string, lineNumber: number): LineItem {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { result: badLine('', `line ${lineNumber}: not valid JSON (${(error as Error).message})`) };
  }
  const parsed = sampleFromJson(value, '');
  if (parsed.ok) return { sample: parsed.sample };
  const id = isJsonObject(value) && typeof value.id === 'string' ? value.id : '';
  const verifier = isJsonObject(value) && typeof value.verifier === 'string' ? value.verifier : '';
  return { result: badLine(id, parsed.error, verifier) };
}

function badLine(id: string, reason: string, verifier = ''): ScoreResult {
  const outcome = invalid(reason);
  return { id, index: 0, status: outcome.status, reason: outcome.reason, verifier, verifierVersion: '', details: {} };
}
