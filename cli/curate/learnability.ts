import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '../../core/json';
import { addSample, decide, defaultMinOk, formatInterval, histogramBin, HISTOGRAM_BINS, newTally, type Decision, type Mode, type Tally } from '../../curate/learnability';
import { at } from '../../curate/text';
import { resultRow } from '../dataset/results';
import { scoreFile, type ScoreFileOptions } from '../score';
import { checkOutputs, finishOutputs, keptOutput, maybeOutput, openInput, progressFor, rowOrThrow, type OutputSpec } from './io';

export interface LearnabilityOptions {
  /** Scored results (verdict score's output), or rollouts when `score` is given. */
  input: string;
  format?: string;
  /** Score the input first, with these options (all but input and output); the results go to `results` or a temporary file. */
  score?: Omit<ScoreFileOptions, 'input' | 'output'>;
  results?: string;
  /** The prompt id of a result (dotted path). */
  key: string;
  mode: Mode;
  passReward: number;
  minOk?: number;
  /** The prompt file whose rows are kept or dropped, and the field of its rows that holds the prompt id. */
  prompts?: string;
  promptsFormat?: string;
  promptKey: string;
  output?: string;
  outputFormat?: string;
  dropped?: string;
  undecided?: string;
  progress: boolean;
}

export interface LearnabilityReport extends JsonObject {
  kind: 'verdict.curate';
  version: 1;
  command: 'learnability';
  input: string;
  mode: string;
  minOk: number;
  passReward: number;
  samples: { ok: number; aborted: number; invalid: number; withoutKey: number };
  prompts: number;
  kept: number;
  dropped: number;
  undecided: number;
  reasons: Record<string, number>;
  histogram: Array<{ bin: string; prompts: number }>;
  /** With --prompts: prompt rows no result names (written to --undecided), and result keys no prompt row has. */
  promptRows: { rows: number; noResults: number; unknownKeys: number } | null;
}

function modeName(mode: Mode): string {
  switch (mode.kind) {
    case 'window':
      return `window ${formatInterval(mode.window)}`;
    case 'count':
      return `count ${mode.min}..${mode.max} of ${mode.of}`;
    default:
      return mode.kind;
  }
}

function keyOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null;
}

/** Where each decision's prompts go. */
function outputSpecs(options: LearnabilityOptions): Record<Decision, OutputSpec> {
  return { kept: keptOutput(options.output, options.outputFormat), dropped: { path: options.dropped, option: '--dropped' }, undecided: { path: options.undecided, option: '--undecided' } };
}

export async function learnability(options: LearnabilityOptions): Promise<LearnabilityReport> {
  // Checked before any scoring: a bad name found after an hour of it would lose the hour.
  checkOutputs(...Object.values(outputSpecs(options)));
  let resultsPath = options.input;
  let scratch: string | null = null;
  if (options.score) {
    if (options.results === undefined) scratch = mkdtempSync(join(tmpdir(), 'verdict-curate-'));
    resultsPath = options.results ?? join(scratch!, 'results.jsonl');
    const run = await scoreFile({ ...options.score, input: options.input, output: resultsPath, ...(options.format ? { inputFormat: options.format } : {}) });
    if (run.interrupted) throw new Error(`scoring was interrupted after input line ${run.lastLine}: nothing curated`);
  }
  try {
    return await curateResults(resultsPath, options);
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

async function curateResults(resultsPath: string, options: LearnabilityOptions): Promise<LearnabilityReport> {
  const tallies = new Map<string, Tally>();
  const samples = { ok: 0, aborted: 0, invalid: 0, withoutKey: 0 };
  const input = await openInput(resultsPath, options.score ? undefined : options.format, 'results');
  const progress = progressFor(input.source, options.progress, 'tallying', ['ok', 'aborted', 'invalid']);
  let rows = 0;
  try {
    for await (const raw of input.source.rows) {
      const { status, reward, json } = resultRow(rowOrThrow(raw, resultsPath).value, resultsPath, raw.line, { statusHint: '(give rollouts with --score)' });
      rows++;
      const key = keyOf(at(json, options.key));
      if (key === null) {
        samples.withoutKey++;
        continue;
      }
      samples[status === 'OK' ? 'ok' : status === 'ABORTED' ? 'aborted' : 'invalid']++;
      let tally = tallies.get(key);
      if (!tally) tallies.set(key, (tally = newTally()));
      addSample(tally, status, reward, options.passReward, options.mode);
      if (rows % 4096 === 0) progress?.update(rows, samples);
    }
  } finally {
    progress?.stop();
  }
  if (tallies.size === 0) throw new Error(`${resultsPath}: no result has a prompt id at "${options.key}" (choose the field with --key)`);
  const minOk = options.minOk ?? defaultMinOk(options.mode);
  const decisions = new Map<string, { decision: Decision; reason: string; rate: number | null }>();
  const reasons: Record<string, number> = {};
  const histogram = HISTOGRAM_BINS.map(() => 0);
  const counts = { kept: 0, dropped: 0, undecided: 0 };
  for (const [key, tally] of tallies) {
    const verdict = decide(tally, options.mode, minOk);
    decisions.set(key, verdict);
    reasons[verdict.reason] = (reasons[verdict.reason] ?? 0) + 1;
    counts[verdict.decision]++;
    if (verdict.rate !== null) histogram[histogramBin(verdict.rate)]!++;
  }
  const record = (key: string): JsonObject => {
    const t = tallies.get(key)!;
    const d = decisions.get(key)!;
    return { key, decision: d.decision, reason: d.reason, rate: d.rate, ok: t.ok, passed: t.passed, aborted: t.aborted, invalid: t.invalid };
  };
  const promptRows = options.prompts ? await writePromptRows(options, decisions, record) : await writeTallies(options, decisions, record);
  return {
    kind: 'verdict.curate',
    version: 1,
    command: 'learnability',
    input: options.input,
    mode: modeName(options.mode),
    minOk,
    passReward: options.passReward,
    samples,
    prompts: tallies.size,
    ...counts,
    reasons,
    histogram: HISTOGRAM_BINS.map((bin, k) => ({ bin, prompts: histogram[k]! })),
    promptRows,
  };
}

/** Without a prompt file: one record per prompt (its tally and decision) in the output of its decision. */
async function writeTallies(options: LearnabilityOptions, decisions: Map<string, { decision: Decision }>, record: (key: string) => JsonObject): Promise<null> {
  const specs = outputSpecs(options);
  const outputs = { kept: maybeOutput(specs.kept, null), dropped: maybeOutput(specs.dropped, null), undecided: maybeOutput(specs.undecided, null) };
  let ok = false;
  try {
    for (const [key, d] of decisions) await outputs[d.decision]?.record(record(key));
    ok = true;
  } finally {
    await finishOutputs(ok, ...Object.values(outputs));
  }
  return null;
}

/** With a prompt file: its rows untouched in the kept output; dropped and undecided rows beside their tally. */
async function writePromptRows(
  options: LearnabilityOptions,
  decisions: Map<string, { decision: Decision }>,
  record: (key: string) => JsonObject,
): Promise<{ rows: number; noResults: number; unknownKeys: number }> {
  const path = options.prompts!;
  const input = await openInput(path, options.promptsFormat, '--prompts');
  const specs = outputSpecs(options);
  const kept = maybeOutput(specs.kept, input);
  const dropped = maybeOutput(specs.dropped, null);
  const undecided = maybeOutput(specs.undecided, null);
  const seen = new Set<string>();
  let rows = 0;
  let noResults = 0;
  let ok = false;
  try {
    for await (const raw of input.source.rows) {
      const row = rowOrThrow(raw, path);
      rows++;
      const key = keyOf(at(row.value, options.promptKey));
      const decision = key === null ? undefined : decisions.get(key);
      if (key !== null) seen.add(key);
      if (decision === undefined) {
        noResults++;
        await undecided?.record({ line: row.line, key, decision: 'undecided', reason: key === null ? `no prompt id at "${options.promptKey}"` : 'no_results', row: row.value });
      } else if (decision.decision === 'kept') await kept?.row(row);
      else await (decision.decision === 'dropped' ? dropped : undecided)?.record({ line: row.line, ...record(key!), row: row.value });
    }
    ok = true;
  } finally {
    await finishOutputs(ok, kept, dropped, undecided);
  }
  let unknownKeys = 0;
  for (const key of decisions.keys()) if (!seen.has(key)) unknownKeys++;
  return { rows, noResults, unknownKeys };
}

export function renderLearnability(report: LearnabilityReport): string {
  const s = report.samples;
  const lines = [
    `${report.prompts} prompts (${s.ok} OK, ${s.aborted} ABORTED, ${s.invalid} INVALID samples${s.withoutKey > 0 ? `, ${s.withoutKey} without a prompt id` : ''}); mode ${report.mode}, pass at reward ≥ ${report.passReward}, at least ${report.minOk} OK`,
    `kept ${report.kept}, dropped ${report.dropped}, undecided ${report.undecided} (too few OK samples: reported, not dropped)`,
    `  reasons: ${Object.entries(report.reasons)
      .sort((a, b) => b[1] - a[1])
      .map(([r, n]) => `${r} ${n}`)
      .join(', ')}`,
  ];
  if (report.promptRows) lines.push(`  prompt file: ${report.promptRows.rows} rows, ${report.promptRows.noResults} without results (undecided), ${report.promptRows.unknownKeys} result keys with no prompt row`);
  lines.push('pass rate over OK samples (prompts):');
  const most = Math.max(1, ...report.histogram.map((h) => h.prompts));
  for (const h of report.histogram) lines.push(`  ${h.bin.padStart(7)} ${'█'.repeat(Math.round((40 * h.prompts) / most)).padEnd(40)} ${h.prompts}`);
  return lines.join('\n');
}
