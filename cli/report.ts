import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { isJsonObject, type JsonObject } from '../core/json';
import type { ReportData } from '../web/page';
import { REPORT_KINDS } from '../web/report-kinds';
import { formatOf } from './dataset/format';
import { openRows } from './dataset/read';
import { resultRow, ResultRowError } from './dataset/results';

/**
 * `verdict report INPUT [-o report.html]`: one self-contained HTML page of a results file (told by
 * its shape: rows with a status and a verifier) or of a JSON report (told by its `kind`). The page
 * itself renders (web/client/report.ts), the same renderer the playground uses for an opened file.
 */

export class ReportInputError extends Error {}

/** A whole JSON document with a `kind`, or null when the file is something else (JSON Lines). */
function jsonReport(path: string): JsonObject | null {
  const text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  if (!text.trimStart().startsWith('{')) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null; // several JSON lines: a results file
  }
  if (isJsonObject(value) && typeof value.kind !== 'string' && typeof value.total === 'number' && Array.isArray(value.rows)) {
    throw new ReportInputError(`${path}: this is the closing summary of verdict score (--summary-json), which holds counts only; give the results file it wrote (-o) to see each result`);
  }
  return isJsonObject(value) && typeof value.kind === 'string' ? value : null;
}

export async function readReportInput(path: string): Promise<ReportData> {
  const format = formatOf(path, undefined, 'RESULTS');
  if (!format.ok) throw new ReportInputError(format.error);
  if (path !== '-' && !existsSync(path)) throw new ReportInputError(`${path}: no such file (the results of verdict score -o FILE, or a JSON report)`);
  if (format.format === 'jsonl' && path !== '-') {
    const report = jsonReport(path);
    if (report !== null) {
      const kind = String(report.kind);
      const versions = REPORT_KINDS[kind];
      if (!versions) throw new ReportInputError(`${path}: unknown report kind "${kind}" (known: ${Object.keys(REPORT_KINDS).join(', ')}, or a results file from verdict score)`);
      if (typeof report.version !== 'number' || !versions.includes(report.version)) {
        throw new ReportInputError(`${path}: ${kind} version ${JSON.stringify(report.version ?? null)} is not one this version reads (${versions.join(', ')})`);
      }
      return { kind, report };
    }
  }
  const source = await openRows(path, format.format);
  const rows: JsonObject[] = [];
  for await (const row of source.rows) {
    if ('error' in row) throw new ReportInputError(`${path}: line ${row.line}: ${row.error}`);
    if (typeof row.value.status !== 'string' || !('verifier' in row.value)) {
      throw new ReportInputError(`${path}: line ${row.line}: not a result (no "status" and "verifier"); expected the output of verdict score, or a JSON report with a "kind"`);
    }
    try {
      rows.push(resultRow(row.value, path, row.line).json);
    } catch (error) {
      if (error instanceof ResultRowError) throw new ReportInputError(error.message);
      throw error;
    }
  }
  if (rows.length === 0) throw new ReportInputError(`${path}: no results`);
  // Responses kept by verdict score --keep-response: bounded here as joined ones are.
  for (const row of rows) {
    if (typeof row.response === 'string' && row.response.length > MAX_RESPONSE_CHARS) {
      row.responseChars = row.response.length;
      row.response = bounded(row.response);
    }
  }
  return { kind: 'results', rows };
}

/** Characters of a response kept per result: a report of 100k failures stays a file a browser opens. */
export const MAX_RESPONSE_CHARS = 16_384;

function bounded(text: string): string {
  return text.length <= MAX_RESPONSE_CHARS ? text : `${text.slice(0, MAX_RESPONSE_CHARS)}…[truncated: ${text.length} characters in all]`;
}

/**
 * Puts each result's response, from the input file it was scored from, into its row as `response`:
 * joined by the result's `line` (the input line or Parquet row `verdict score` records), else by id;
 * a list-valued response is picked by the result's `rollout`. The input is streamed; only the
 * responses of the report's results are kept, each cut at MAX_RESPONSE_CHARS. Returns how many joined.
 */
export async function joinResponses(rows: JsonObject[], inputPath: string, responseField: string): Promise<number> {
  if (!existsSync(inputPath)) throw new ReportInputError(`--input ${inputPath}: no such file (the dataset verdict score read)`);
  // Loaded here and in the action, not at import: this module defines the command for every start-up.
  const { at } = await import('../curate/text');
  const format = formatOf(inputPath, undefined, '--input');
  if (!format.ok) throw new ReportInputError(format.error);
  const byLine = new Map<number, number[]>();
  const byId = new Map<string, number[]>();
  rows.forEach((row, i) => {
    const index = typeof row.line === 'number' ? byLine : byId;
    const key = typeof row.line === 'number' ? row.line : String(row.id ?? '');
    const list = (index as Map<number | string, number[]>).get(key) ?? [];
    list.push(i);
    (index as Map<number | string, number[]>).set(key, list);
  });
  let joined = 0;
  const source = await openRows(inputPath, format.format);
  for await (const input of source.rows) {
    if ('error' in input) continue;
    const id = input.value.id;
    const targets = [...(byLine.get(input.line) ?? []), ...(typeof id === 'string' || typeof id === 'number' ? (byId.get(String(id)) ?? []) : [])];
    if (targets.length === 0) continue;
    const response = at(input.value, responseField);
    for (const i of targets) {
      const row = rows[i]!;
      const value = Array.isArray(response) && typeof row.rollout === 'number' ? response[row.rollout] : response;
      if (typeof value !== 'string') continue;
      row.response = bounded(value);
      // The whole length, for the page's response-length view (the text itself may be cut).
      row.responseChars = value.length;
      const tokens = input.value.responseTokens ?? input.value.response_tokens ?? input.value.response_length;
      if (typeof tokens === 'number' && row.responseTokens === undefined) row.responseTokens = tokens;
      joined++;
    }
  }
  return joined;
}

export function addReportCommand(cli: Command): void {
  cli
    .command('report')
    .description('write one self-contained HTML page of a results file (rewards, statuses, reasons, groups, lengths, failures with their responses) or of a JSON report (verdict diff --json, curate --summary-json, audit -o)')
    .argument('<input>', 'results of verdict score (JSONL, .gz, .zst or Parquet), or a JSON report with a "kind"')
    .option('-o, --output <file>', 'the HTML file to write', 'report.html')
    .option('--input <dataset>', `the dataset the results were scored from: each result shows its response (joined by line, else id; at most ${MAX_RESPONSE_CHARS} characters each)`)
    .option('--response-field <path>', 'with --input: where a row holds its response (as verdict score --response-field)', 'response')
    .action(async (input: string, opts: { output: string; input?: string; responseField: string }) => {
      const data = await readReportInput(input);
      let joined = '';
      if (opts.input !== undefined) {
        if (!('rows' in data)) throw new ReportInputError(`--input: ${input} is a ${data.kind} report, not a results file; --input joins responses to results`);
        const n = await joinResponses(data.rows as JsonObject[], opts.input, opts.responseField);
        joined = `, ${n} with their response`;
        if (n === 0) process.stderr.write(`verdict: warning: --input ${opts.input}: no result matched a row with a string at "${opts.responseField}" (by line or id): is it the file these results were scored from?\n`);
      }
      const { reportPage } = await import('../web/page');
      writeFileSync(opts.output, reportPage(input, data));
      const what = 'rows' in data ? `${data.rows.length} results${joined}` : data.kind;
      process.stdout.write(`wrote ${opts.output} (${what})\n`);
    });
}
