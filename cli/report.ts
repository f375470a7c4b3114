import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { isJsonObject, type JsonObject } from '../core/json';
import { reportPage, type ReportData } from '../web/page';
import { REPORT_KINDS } from '../web/report-kinds';
import { formatOf } from './dataset/format';
import { openRows } from './dataset/read';

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
    rows.push(row.value);
  }
  if (rows.length === 0) throw new ReportInputError(`${path}: no results`);
  return { kind: 'results', rows };
}

export function addReportCommand(cli: Command): void {
  cli
    .command('report')
    .description('write one self-contained HTML page of a results file (or of a verdict diff --json report): rewards, statuses, reasons, groups, failures')
    .argument('<input>', 'results of verdict score (JSONL, .gz, .zst or Parquet), or a JSON report with a "kind"')
    .option('-o, --output <file>', 'the HTML file to write', 'report.html')
    .action(async (input: string, opts: { output: string }) => {
      const data = await readReportInput(input);
      writeFileSync(opts.output, reportPage(input, data));
      const what = 'rows' in data ? `${data.rows.length} results` : data.kind;
      process.stdout.write(`wrote ${opts.output} (${what})\n`);
    });
}
