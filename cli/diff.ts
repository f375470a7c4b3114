import type { JsonObject } from '../core/json';
import { STATUS_NAMES } from '../core/status';
import { readResults, type ResultRow } from './dataset/results';

/**
 * `verdict diff OLD NEW`: what changed between two result files of the same input, per verifier —
 * the report to read before trusting a verifier fix. Rows are matched by (line, rollout), both files
 * being in input order, so the files are streamed side by side.
 */
export interface VerifierDiff {
  verifier: string;
  compared: number;
  rewardChanged: number;
  /** Reward 0 before, 1 after. */
  flipsUp: number;
  /** Reward 1 before, 0 after. */
  flipsDown: number;
  meanBefore: number | null;
  meanAfter: number | null;
  /** "STATUS_OK → STATUS_ABORTED" → count. */
  statusChanges: Record<string, number>;
  /** Why changed results changed, from their receipts: verifier, config, data, or unexplained (same receipt). */
  causes: Record<string, number>;
}

export interface ChangedSample {
  line: number;
  rollout: number | null;
  cause: string;
  old: JsonObject;
  new: JsonObject;
}

export interface DiffReport {
  /** What `verdict report` dispatches on (cli/report.ts). */
  kind: 'verdict.diff';
  version: 1;
  verifiers: VerifierDiff[];
  changed: ChangedSample[];
  /** Results whose status or reward changed, all verifiers. */
  totalChanged: number;
  onlyOld: number;
  onlyNew: number;
  /** The two files compared, as named on the command line (absent in reports of earlier builds). */
  files?: { old: string; new: string };
}

type Keyed = { line: number; rollout: number; row: ResultRow };

async function* keyedRows(file: string, what: string): AsyncGenerator<Keyed> {
  const results = await readResults(file, { what, needLine: true });
  for await (const row of results.rows) yield { line: row.line!, rollout: row.rollout ?? -1, row };
}

function compareKeys(a: Keyed, b: Keyed): number {
  return a.line - b.line || a.rollout - b.rollout;
}

function causeOf(before: ResultRow, after: ResultRow): string {
  const r0 = before.receipt;
  const r1 = after.receipt;
  if (r0?.input !== r1?.input) return 'data';
  if (r0?.verifier !== r1?.verifier) return 'verifier';
  if (r0?.config !== r1?.config) return 'config';
  return 'unexplained';
}

export async function diffFiles(oldFile: string, newFile: string, options: { show?: number }): Promise<DiffReport> {
  const show = options.show ?? 10;
  const stats = new Map<string, VerifierDiff & { sumBefore: number; okBefore: number; sumAfter: number; okAfter: number }>();
  const report: DiffReport = { kind: 'verdict.diff', version: 1, verifiers: [], changed: [], totalChanged: 0, onlyOld: 0, onlyNew: 0, files: { old: oldFile, new: newFile } };
  const olds = keyedRows(oldFile, 'OLD');
  const news = keyedRows(newFile, 'NEW');
  let a = await olds.next();
  let b = await news.next();
  while (!a.done || !b.done) {
    if (b.done || (!a.done && compareKeys(a.value, b.value) < 0)) {
      report.onlyOld++;
      a = await olds.next();
      continue;
    }
    if (a.done || compareKeys(a.value, b.value) > 0) {
      report.onlyNew++;
      b = await news.next();
      continue;
    }
    const before = a.value.row;
    const after = b.value.row;
    const verifier = after.verifier || before.verifier;
    let s = stats.get(verifier);
    if (!s) {
      s = { verifier, compared: 0, rewardChanged: 0, flipsUp: 0, flipsDown: 0, meanBefore: null, meanAfter: null, statusChanges: {}, causes: {}, sumBefore: 0, okBefore: 0, sumAfter: 0, okAfter: 0 };
      stats.set(verifier, s);
    }
    s.compared++;
    const r0 = before.reward;
    const r1 = after.reward;
    if (r0 !== null) (s.sumBefore += r0), s.okBefore++;
    if (r1 !== null) (s.sumAfter += r1), s.okAfter++;
    const statusChanged = before.status !== after.status;
    const rewardChanged = !statusChanged && r0 !== r1;
    if (statusChanged) {
      const key = `${STATUS_NAMES[before.status]} → ${STATUS_NAMES[after.status]}`;
      s.statusChanges[key] = (s.statusChanges[key] ?? 0) + 1;
    }
    if (rewardChanged) {
      s.rewardChanged++;
      if (r0 === 0 && r1 === 1) s.flipsUp++;
      if (r0 === 1 && r1 === 0) s.flipsDown++;
    }
    if (statusChanged || rewardChanged) {
      const cause = causeOf(before, after);
      s.causes[cause] = (s.causes[cause] ?? 0) + 1;
      report.totalChanged++;
      if (report.changed.length < show) report.changed.push({ line: a.value.line, rollout: a.value.rollout < 0 ? null : a.value.rollout, cause, old: before.json, new: after.json });
    }
    a = await olds.next();
    b = await news.next();
  }
  report.verifiers = [...stats.values()]
    .sort((x, y) => x.verifier.localeCompare(y.verifier))
    .map(({ sumBefore, okBefore, sumAfter, okAfter, ...v }) => ({ ...v, meanBefore: okBefore ? sumBefore / okBefore : null, meanAfter: okAfter ? sumAfter / okAfter : null }));
  return report;
}

const mean = (v: number | null) => (v === null ? '-' : v.toFixed(4));

function brief(result: JsonObject): string {
  const reward = typeof result.reward === 'number' ? ` reward ${result.reward}` : '';
  return `${String(result.status)}${reward} ${String(result.reason)} ${String((result.receipt as JsonObject | undefined)?.verifier ?? '')} details ${JSON.stringify(result.details ?? {}).slice(0, 300)}`;
}

export function renderDiff(report: DiffReport): string {
  const lines: string[] = [];
  for (const v of report.verifiers) {
    const changes = Object.entries(v.statusChanges).map(([k, n]) => `${n} ${k}`).join(', ') || 'none';
    const causes = Object.entries(v.causes).sort(([x], [y]) => x.localeCompare(y)).map(([k, n]) => `${n} ${k}`).join(', ') || '-';
    lines.push(
      `${v.verifier || '(none)'}: ${v.compared} compared, ${v.rewardChanged} rewards changed (0→1: ${v.flipsUp}, 1→0: ${v.flipsDown}), mean reward ${mean(v.meanBefore)} → ${mean(v.meanAfter)}; status changes: ${changes}; causes: ${causes}`,
    );
  }
  if (report.onlyOld || report.onlyNew) lines.push(`rows only in OLD: ${report.onlyOld}, only in NEW: ${report.onlyNew} (not the same input?)`);
  if (report.changed.length > 0) lines.push(`first ${report.changed.length} changed:`);
  for (const c of report.changed) {
    lines.push(`  line ${c.line}${c.rollout === null ? '' : ` rollout ${c.rollout}`} (${String(c.new.id ?? '')}), cause ${c.cause}`);
    lines.push(`    old: ${brief(c.old)}`);
    lines.push(`    new: ${brief(c.new)}`);
  }
  const total = report.verifiers.reduce((n, v) => n + v.compared, 0);
  lines.push(`${report.totalChanged} of ${total} results changed`);
  return lines.join('\n');
}
