import type { GroupSummary } from '../core/groups';
import type { Status } from '../core/sample';

/**
 * Latencies in logarithmic buckets (20 per decade from 1 µs): a percentile is read to within 12% with
 * a few hundred counters, however many samples, and the state fits in a resume checkpoint.
 */
const PER_DECADE = 20;
const MIN_SECONDS = 1e-6;

function bucketOf(seconds: number): number {
  if (seconds <= MIN_SECONDS) return 0;
  return Math.ceil(Math.log10(seconds / MIN_SECONDS) * PER_DECADE);
}

function bucketUpper(bucket: number): number {
  return MIN_SECONDS * 10 ** (bucket / PER_DECADE);
}

interface Cell {
  count: number;
  rewardSum: number;
  rewardCount: number;
  /** bucket → count */
  latency: Record<number, number>;
  timed: number;
}

/** Distinct reasons kept per verifier × status; the rest are counted under "(other reasons)". */
const MAX_REASONS = 100;
const OTHER = '(other reasons)';

export interface SummaryRow {
  verifier: string;
  status: Status;
  reason: string;
  count: number;
  meanReward: number | null;
  p50Ms: number | null;
  p99Ms: number | null;
}

export interface SummaryState {
  cells: Record<string, Cell>;
  groups: { total: number; kept: number; dropped: Record<string, number> };
}

/** Running totals for the closing summary of `verdict score`: per verifier × status × reason. */
export class Summary {
  private cells = new Map<string, Cell>();
  private readonly reasonsPer = new Map<string, number>();
  private groups = { total: 0, kept: 0, dropped: {} as Record<string, number> };

  static key(verifier: string, status: Status, reason: string): string {
    return JSON.stringify([verifier, status, reason]);
  }

  /** `reason` is the bare reason (no "line N:" prefix), so equal causes are counted together. */
  add(verifier: string, status: Status, reason: string, reward: number | undefined, seconds: number | null): void {
    let key = Summary.key(verifier, status, reason);
    if (!this.cells.has(key)) {
      const family = `${verifier}\u0000${status}`;
      const n = this.reasonsPer.get(family) ?? 0;
      if (n >= MAX_REASONS) key = Summary.key(verifier, status, OTHER);
      else this.reasonsPer.set(family, n + 1);
    }
    let cell = this.cells.get(key);
    if (!cell) {
      cell = { count: 0, rewardSum: 0, rewardCount: 0, latency: {}, timed: 0 };
      this.cells.set(key, cell);
    }
    cell.count++;
    if (reward !== undefined) {
      cell.rewardSum += reward;
      cell.rewardCount++;
    }
    if (seconds !== null) {
      const b = bucketOf(seconds);
      cell.latency[b] = (cell.latency[b] ?? 0) + 1;
      cell.timed++;
    }
  }

  addGroup(group: GroupSummary): void {
    this.groups.total++;
    if (group.keep) this.groups.kept++;
    else this.groups.dropped[group.keepReason] = (this.groups.dropped[group.keepReason] ?? 0) + 1;
  }

  countOf(status: Status): number {
    let n = 0;
    for (const [key, cell] of this.cells) if ((JSON.parse(key) as [string, Status, string])[1] === status) n += cell.count;
    return n;
  }

  get total(): number {
    let n = 0;
    for (const cell of this.cells.values()) n += cell.count;
    return n;
  }

  rows(): SummaryRow[] {
    return [...this.cells]
      .map(([key, cell]) => {
        const [verifier, status, reason] = JSON.parse(key) as [string, Status, string];
        return {
          verifier,
          status,
          reason,
          count: cell.count,
          meanReward: cell.rewardCount > 0 ? cell.rewardSum / cell.rewardCount : null,
          p50Ms: percentileMs(cell, 0.5),
          p99Ms: percentileMs(cell, 0.99),
        };
      })
      .sort((a, b) => a.verifier.localeCompare(b.verifier) || a.status.localeCompare(b.status) || b.count - a.count || a.reason.localeCompare(b.reason));
  }

  /** The most frequent reasons of one status, across verifiers. */
  topReasons(status: Status, n: number): Array<{ reason: string; count: number }> {
    const counts = new Map<string, number>();
    for (const row of this.rows()) if (row.status === status) counts.set(row.reason, (counts.get(row.reason) ?? 0) + row.count);
    return [...counts].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)).slice(0, n);
  }

  meanReward(verifier: string): { mean: number; count: number } | null {
    let sum = 0;
    let count = 0;
    for (const [key, cell] of this.cells) {
      if ((JSON.parse(key) as [string])[0] !== verifier) continue;
      sum += cell.rewardSum;
      count += cell.rewardCount;
    }
    return count > 0 ? { mean: sum / count, count } : null;
  }

  render(): string {
    const ok = this.countOf('OK');
    const lines = [`scored ${this.total} sample${this.total === 1 ? '' : 's'}: ${ok} ok, ${this.countOf('INVALID')} invalid, ${this.countOf('ABORTED')} aborted`];
    const verifiers = [...new Set(this.rows().map((r) => r.verifier))];
    for (const verifier of verifiers) {
      const mean = this.meanReward(verifier);
      if (mean) lines.push(`  ${(verifier || '(none)').padEnd(10)} mean reward ${mean.mean.toFixed(4)} over ${mean.count} ok sample${mean.count === 1 ? '' : 's'}`);
    }
    lines.push(`  ${'verifier'.padEnd(10)} ${'status'.padEnd(8)} ${'count'.padStart(9)} ${'mean'.padStart(7)} ${'p50 ms'.padStart(9)} ${'p99 ms'.padStart(9)}  reason`);
    for (const row of this.rows()) {
      const ms = (v: number | null) => (v === null ? '-' : v < 10 ? v.toFixed(3) : v.toFixed(1)).padStart(9);
      lines.push(
        `  ${(row.verifier || '(none)').padEnd(10)} ${row.status.padEnd(8)} ${String(row.count).padStart(9)} ${(row.meanReward === null ? '-' : row.meanReward.toFixed(4)).padStart(7)} ${ms(row.p50Ms)} ${ms(row.p99Ms)}  ${row.reason}`,
      );
    }
    if (this.groups.total > 0) {
      const dropped = Object.entries(this.groups.dropped).sort(([a], [b]) => a.localeCompare(b)).map(([reason, n]) => `${n} ${reason}`);
      lines.push(`groups: ${this.groups.total}, kept ${this.groups.kept}${dropped.length ? `, dropped ${dropped.join(', ')}` : ''}`);
    }
    return lines.join('\n');
  }

  toJson(): { total: number; ok: number; invalid: number; aborted: number; rows: SummaryRow[]; groups: SummaryState['groups'] } {
    return { total: this.total, ok: this.countOf('OK'), invalid: this.countOf('INVALID'), aborted: this.countOf('ABORTED'), rows: this.rows(), groups: this.groups };
  }

  state(): SummaryState {
    return { cells: Object.fromEntries(this.cells), groups: this.groups };
  }

  static fromState(state: SummaryState): Summary {
    const summary = new Summary();
    for (const [key, cell] of Object.entries(state.cells)) {
      summary.cells.set(key, cell);
      const [verifier, status] = JSON.parse(key) as [string, Status];
      const family = `${verifier}\u0000${status}`;
      summary.reasonsPer.set(family, (summary.reasonsPer.get(family) ?? 0) + 1);
    }
    summary.groups = state.groups;
    return summary;
  }
}

function percentileMs(cell: Cell, q: number): number | null {
  if (cell.timed === 0) return null;
  const rank = Math.ceil(q * cell.timed);
  let seen = 0;
  for (const bucket of Object.keys(cell.latency).map(Number).sort((a, b) => a - b)) {
    seen += cell.latency[bucket]!;
    if (seen >= rank) return bucketUpper(bucket) * 1000;
  }
  return null;
}
