import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { checkAgainst } from '../core/label';
import { isJsonObject, type Json, type JsonObject } from '../core/json';
import type { Sample, ScoreResult } from '../core/sample';
import type { Registry } from '../core/registry';
import type { ServiceSection } from '../core/verifier';
import type { VerdictConfig } from '../services/config';
import { VERDICT_VERIFIERS } from '../services/pool-entry';
import type { PoolEntry } from '../services/pool/worker';
import { STATUS_NAMES } from '../core/status';
import { sampleFromJson } from '../services/wire/json';
import { canonicalJson } from './receipt';
import { localScorer } from './scorer';

/** What a case expects of its result; every field given must match. */
const expectation = z.strictObject({
  status: z.enum(Object.values(STATUS_NAMES) as [string, ...string[]]).optional(),
  reward: z.number().optional(),
  /** How far the reward may be from `reward` (default 1e-9). */
  tolerance: z.number().nonnegative().optional(),
  reason: z.string().optional(),
  /** A regular expression the reason must match. */
  reasonMatches: z.string().optional(),
  /** A subset of the result's details: each key given must be there with an equal value (objects recursively). */
  details: z.record(z.string(), z.unknown()).optional(),
});
type Expectation = z.output<typeof expectation>;

/** A case as read from its file: where it is, and its sample and expectation or why it has none. */
interface Case {
  file: string;
  line: number;
  id: string;
  /** The case's raw object, for --update to rewrite. */
  raw: JsonObject | null;
  /** Its position in a YAML file's list (--update). */
  yamlIndex: number | null;
  sample?: Sample;
  expected?: Expectation;
  error?: string;
}

export interface CaseReport {
  file: string;
  line: number;
  id: string;
  passed: boolean;
  problems: string[];
  expected?: Expectation;
  result?: ScoreResult;
}

const CASE_FILE = /(^|\.)cases\.(jsonl|ya?ml)$/;

/** Case files under the given paths: files as given, folders searched for `cases.*` / `*.cases.*` (JSONL or YAML). */
export function caseFiles(paths: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (CASE_FILE.test(entry.name)) found.push(full);
    }
  };
  for (const p of paths) {
    let stat;
    try {
      stat = statSync(p);
    } catch {
      throw new Error(`${p}: no such file or folder`);
    }
    if (stat.isDirectory()) walk(p);
    else found.push(p);
  }
  return found;
}

function readCase(file: string, line: number, value: unknown, yamlIndex: number | null): Case {
  const base = { file, line, yamlIndex };
  if (!isJsonObject(value)) return { ...base, id: '', raw: null, error: 'expected a case object (a sample plus "expect")' };
  const { expect: rawExpect, ...rest } = value;
  const id = typeof rest.id === 'string' ? rest.id : '';
  if (rawExpect === undefined) return { ...base, id, raw: value, error: 'expect: required (a case must say what its result should be)' };
  const expected = checkAgainst(expectation, rawExpect, 'expect');
  if (!expected.ok) return { ...base, id, raw: value, error: expected.error };
  if (expected.value.reasonMatches !== undefined) {
    try {
      new RegExp(expected.value.reasonMatches);
    } catch (error) {
      return { ...base, id, raw: value, error: `expect.reasonMatches: not a regular expression (${(error as Error).message})` };
    }
  }
  const parsed = sampleFromJson(rest, '');
  if (!parsed.ok) return { ...base, id, raw: value, error: parsed.error };
  return { ...base, id, raw: value, sample: parsed.sample, expected: expected.value };
}

function readJsonl(file: string, text: string): Case[] {
  const cases: Case[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      cases.push({ file, line: i + 1, id: '', raw: null, yamlIndex: null, error: `not valid JSON (${(error as Error).message})` });
      return;
    }
    cases.push(readCase(file, i + 1, value, null));
  });
  return cases;
}

function parseYaml(file: string, text: string): { doc: Document; lines: LineCounter } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  if (doc.errors.length > 0) throw new Error(`${file}: not valid YAML (${doc.errors[0]!.message})`);
  return { doc, lines };
}

function readYaml(file: string, text: string): Case[] {
  const { doc, lines } = parseYaml(file, text);
  if (!isSeq(doc.contents)) return [{ file, line: 1, id: '', raw: null, yamlIndex: null, error: 'a YAML case file holds a list of cases' }];
  return doc.contents.items.map((node, index) => {
    const offset = isMap(node) && node.range ? node.range[0] : 0;
    return readCase(file, lines.linePos(offset).line, (node as { toJSON(): unknown }).toJSON(), index);
  });
}

const isYaml = (file: string) => /\.ya?ml$/i.test(file);

export function readCases(file: string): Case[] {
  const text = readFileSync(file, 'utf8');
  return isYaml(file) ? readYaml(file, text) : readJsonl(file, text);
}

/** Whether `actual` contains `expected`: objects by key subset, recursively; anything else by equal JSON. */
function contains(actual: Json | undefined, expected: unknown): boolean {
  if (isJsonObject(expected as Json) && isJsonObject(actual as Json)) {
    return Object.entries(expected as JsonObject).every(([k, v]) => contains((actual as JsonObject)[k], v));
  }
  return actual !== undefined && canonicalJson(actual) === canonicalJson(expected);
}

function compare(result: ScoreResult, expected: Expectation): string[] {
  const problems: string[] = [];
  const status = STATUS_NAMES[result.status];
  if (expected.status !== undefined && expected.status !== status) problems.push(`status ${status}, expected ${expected.status}`);
  if (expected.reward !== undefined) {
    const tolerance = expected.tolerance ?? 1e-9;
    if (result.reward === undefined || Math.abs(result.reward - expected.reward) > tolerance) {
      problems.push(`reward ${result.reward ?? 'absent'}, expected ${expected.reward}${expected.tolerance !== undefined ? ` ± ${tolerance}` : ''}`);
    }
  }
  if (expected.reason !== undefined && expected.reason !== result.reason) problems.push(`reason "${result.reason}", expected "${expected.reason}"`);
  if (expected.reasonMatches !== undefined && !new RegExp(expected.reasonMatches).test(result.reason)) {
    problems.push(`reason "${result.reason}" does not match /${expected.reasonMatches}/`);
  }
  if (expected.details !== undefined) {
    for (const [key, value] of Object.entries(expected.details)) {
      if (!contains(result.details[key], value)) problems.push(`details.${key} ${JSON.stringify(result.details[key] ?? null)}, expected ${JSON.stringify(value)}`);
    }
  }
  return problems;
}

export interface CheckOptions {
  workers: number;
  config: VerdictConfig;
  /** Also check every registered verifier's example (`exampleCases`). */
  examples?: boolean;
  /** The verifiers to score with: Verdict's own unless a test says otherwise. */
  verifiers?: PoolEntry;
  /** Only cases whose id or file:line matches this regular expression. */
  filter?: string;
}

/**
 * The verifier unit-test harness: every case is a sample plus `expect`, scored through the same engine
 * as the service, so a passing case file holds for the server too.
 */
export async function checkCases(paths: readonly string[], options: CheckOptions): Promise<{ reports: CaseReport[]; cases: Case[] }> {
  const filter = options.filter === undefined ? null : new RegExp(options.filter);
  const verifiers = options.verifiers ?? VERDICT_VERIFIERS;
  const examples = options.examples ? exampleCases(verifiers.createRegistry(), options.config) : [];
  const cases = [...caseFiles(paths).flatMap(readCases), ...examples]
    .filter((c) => filter === null || filter.test(c.id) || filter.test(`${c.file}:${c.line}`));
  const reports: CaseReport[] = cases
    .filter((c) => c.error !== undefined)
    .map((c) => ({ file: c.file, line: c.line, id: c.id, passed: false, problems: [c.error!] }));
  const runnable = cases.filter((c) => c.sample !== undefined);
  if (runnable.length > 0) {
    const scorer = await localScorer({ workers: options.workers, config: options.config, verifiers });
    try {
      const timed = await scorer.score(runnable.map((c) => c.sample!));
      runnable.forEach((c, i) => {
        const result = timed[i]!.result;
        const problems = compare(result, c.expected!);
        reports.push({ file: c.file, line: c.line, id: c.id, passed: problems.length === 0, problems, expected: c.expected!, result });
      });
    } finally {
      await scorer.close();
    }
  }
  const order = new Map(cases.map((c, i) => [`${c.file}:${c.line}`, i]));
  reports.sort((a, b) => order.get(`${a.file}:${a.line}`)! - order.get(`${b.file}:${b.line}`)!);
  return { reports, cases };
}

/** Where example cases report from: they live in each verifier's definition, not in a case file. */
export const EXAMPLES_FILE = '(examples)';

/**
 * Each registered verifier's example (core/verifier.ts) as a case: OK with its reward when every
 * section the verifier requires and the example needs is in the config (jsIsolate always runs),
 * else ABORTED service_unavailable (naming a missing required one, as the engine answers before `score`).
 */
export function exampleCases(registry: Registry, config: VerdictConfig): Case[] {
  return registry.names().map((name, i) => {
    const verifier = registry.get(name)!;
    const { example } = verifier;
    const absent = (s: ServiceSection) => s !== 'jsIsolate' && config[s] === undefined;
    const missing = verifier.kind === 'async' ? verifier.requires.find(absent) : undefined;
    // A section only this example needs is checked in `score`, which names it more finely (judge.endpoints.search).
    const needed = (example.needs ?? []).some(absent);
    const expected: Expectation =
      missing !== undefined
        ? { status: 'STATUS_ABORTED', reason: 'service_unavailable', details: { service: missing } }
        : needed
          ? { status: 'STATUS_ABORTED', reason: 'service_unavailable' }
          : { status: 'STATUS_OK', ...(example.reward !== undefined ? { reward: example.reward } : {}) };
    const sample: Sample = { id: `${name}.example`, verifier: name, response: example.response, label: example.label, groupId: '', responseTokens: 0, metadata: example.metadata ?? {} };
    return { file: EXAMPLES_FILE, line: i + 1, id: sample.id, raw: null, yamlIndex: null, sample, expected };
  });
}

function describeResult(result: ScoreResult): string {
  return `${STATUS_NAMES[result.status]}${result.reward === undefined ? '' : ` reward ${result.reward}`} reason "${result.reason}"`;
}

export function renderReports(reports: readonly CaseReport[], verbose: boolean): string {
  const lines: string[] = [];
  for (const r of reports) {
    if (r.passed && !verbose) continue;
    const where = `${r.file}:${r.line}${r.id ? ` (${r.id})` : ''}`;
    if (r.passed) {
      lines.push(`PASS ${where}`);
      continue;
    }
    lines.push(`FAIL ${where}: ${r.problems.join('; ')}`);
    if (r.result) {
      lines.push(`     got:      ${describeResult(r.result)}`);
      lines.push(`     expected: ${JSON.stringify(r.expected)}`);
      lines.push(`     details:  ${JSON.stringify(r.result.details).slice(0, 400)}`);
    }
  }
  const passed = reports.filter((r) => r.passed).length;
  lines.push(`${passed} passed, ${reports.length - passed} failed`);
  return lines.join('\n');
}

/** The expectation a result meets, keeping the kinds of check the case had (a reasonMatches that still matches stays). */
export function updatedExpectation(old: Expectation, result: ScoreResult): Expectation {
  const next: Expectation = { status: STATUS_NAMES[result.status] };
  if (result.reward !== undefined) next.reward = result.reward;
  if (old.tolerance !== undefined && result.reward !== undefined) next.tolerance = old.tolerance;
  if (old.reasonMatches !== undefined && new RegExp(old.reasonMatches).test(result.reason) && old.reason === undefined) next.reasonMatches = old.reasonMatches;
  else next.reason = result.reason;
  if (old.details !== undefined) {
    next.details = Object.fromEntries(Object.keys(old.details).filter((k) => k in result.details).map((k) => [k, result.details[k]]));
  }
  return next;
}

/**
 * `--update`: rewrites each failing case's `expect` with what its result is now, printing every change
 * first. JSONL lines are replaced in place; YAML files are edited through their document, so comments
 * and the other cases stay as written.
 */
export function applyUpdates(reports: readonly CaseReport[], cases: readonly Case[], log: (line: string) => void): number {
  const byKey = new Map(cases.map((c) => [`${c.file}:${c.line}`, c]));
  const changes = new Map<string, Array<{ kase: Case; expect: Expectation }>>();
  for (const r of reports) {
    if (r.passed || !r.result || !r.expected) continue;
    const kase = byKey.get(`${r.file}:${r.line}`)!;
    // An example's expectation is its verifier's definition: fixed there by hand, not rewritten here.
    if (kase.raw === null) continue;
    const expect = updatedExpectation(r.expected, r.result);
    log(`update ${r.file}:${r.line}${r.id ? ` (${r.id})` : ''}: expect ${JSON.stringify(r.expected)} → ${JSON.stringify(expect)}`);
    changes.set(r.file, [...(changes.get(r.file) ?? []), { kase, expect }]);
  }
  for (const [file, list] of changes) {
    const text = readFileSync(file, 'utf8');
    if (isYaml(file)) {
      const { doc } = parseYaml(file, text);
      for (const { kase, expect } of list) doc.setIn([kase.yamlIndex!, 'expect'], doc.createNode(expect));
      writeFileSync(file, doc.toString());
    } else {
      const lines = text.split('\n');
      for (const { kase, expect } of list) lines[kase.line - 1] = JSON.stringify({ ...kase.raw!, expect });
      writeFileSync(file, lines.join('\n'));
    }
  }
  return [...changes.values()].reduce((n, l) => n + l.length, 0);
}
