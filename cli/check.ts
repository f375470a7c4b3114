import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { checkAgainst } from '../core/label';
import { isJsonObject } from '../core/json';
import type { Sample, ScoreResult } from '../core/sample';
import type { VerdictConfig } from '../services/config';
import { openRuntime } from '../services/runtime';
import { sampleFromJson, STATUS_NAMES } from '../services/wire/json';

/** What a case expects of its result; every field given must match. */
const expectation = z.strictObject({
  status: z.enum(['STATUS_OK', 'STATUS_INVALID', 'STATUS_ABORTED']).optional(),
  reward: z.number().optional(),
  reason: z.string().optional(),
  /** A regular expression the reason must match. */
  reasonMatches: z.string().optional(),
});
type Expectation = z.output<typeof expectation>;

export interface CaseReport {
  line: number;
  id: string;
  passed: boolean;
  problems: string[];
  result?: ScoreResult;
}

function compare(result: ScoreResult, expected: Expectation): string[] {
  const problems: string[] = [];
  const status = STATUS_NAMES[result.status];
  if (expected.status !== undefined && expected.status !== status) problems.push(`status ${status}, expected ${expected.status}`);
  if (expected.reward !== undefined && (result.reward === undefined || Math.abs(result.reward - expected.reward) > 1e-9)) {
    problems.push(`reward ${result.reward ?? 'absent'}, expected ${expected.reward}`);
  }
  if (expected.reason !== undefined && expected.reason !== result.reason) problems.push(`reason "${result.reason}", expected "${expected.reason}"`);
  if (expected.reasonMatches !== undefined && !new RegExp(expected.reasonMatches).test(result.reason)) {
    problems.push(`reason "${result.reason}" does not match /${expected.reasonMatches}/`);
  }
  return problems;
}

/**
 * The verifier unit-test harness: each line of a cases file is a sample plus `expect`
 * (`{"status": "STATUS_OK", "reward": 1, "reason": "correct"}`, any subset). Every case is scored
 * through the same engine as the service, so a passing case file holds for the server too.
 */
export async function checkCases(file: string, workers: number, config: VerdictConfig): Promise<CaseReport[]> {
  const reports: CaseReport[] = [];
  const pending: Array<{ line: number; sample: Sample; expected: Expectation }> = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (text.trim() === '') return;
      const line = i + 1;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        reports.push({ line, id: '', passed: false, problems: [`not valid JSON (${(error as Error).message})`] });
        return;
      }
      if (!isJsonObject(value)) {
        reports.push({ line, id: '', passed: false, problems: ['expected a JSON object'] });
        return;
      }
      const { expect: rawExpect, ...rest } = value;
      const expected = checkAgainst(expectation, rawExpect ?? {}, 'expect');
      const parsed = sampleFromJson(rest, '');
      const id = typeof rest.id === 'string' ? rest.id : '';
      if (!expected.ok) reports.push({ line, id, passed: false, problems: [expected.error] });
      else if (!parsed.ok) reports.push({ line, id, passed: false, problems: [parsed.error] });
      else pending.push({ line, sample: parsed.sample, expected: expected.value });
    });

  const runtime = await openRuntime({ workers, config });
  try {
    const results = await runtime.engine.score(pending.map((p) => p.sample));
    pending.forEach((p, i) => {
      const result = results[i]!;
      const problems = compare(result, p.expected);
      reports.push({ line: p.line, id: p.sample.id, passed: problems.length === 0, problems, result });
    });
  } finally {
    await runtime.close();
  }
  return reports.sort((a, b) => a.line - b.line);
}

export function renderReports(reports: readonly CaseReport[], verbose: boolean): string {
  const lines: string[] = [];
  for (const r of reports) {
    if (r.passed && !verbose) continue;
    lines.push(`${r.passed ? 'PASS' : 'FAIL'} line ${r.line}${r.id ? ` (${r.id})` : ''}${r.problems.length ? ': ' + r.problems.join('; ') : ''}`);
    if (!r.passed && r.result) lines.push(`     details: ${JSON.stringify(r.result.details).slice(0, 300)}`);
  }
  const passed = reports.filter((r) => r.passed).length;
  lines.push(`${passed} passed, ${reports.length - passed} failed`);
  return lines.join('\n');
}
