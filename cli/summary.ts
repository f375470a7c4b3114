import type { GroupSummary } from '../core/groups';
import type { ScoreResult, Status } from '../core/sample';

/** Running totals for the closing summary of `verdict score`. */
export class Summary {
  readonly byStatus: Record<Status, number> = { OK: 0, INVALID: 0, ABORTED: 0 };
  private readonly rewards = new Map<string, { sum: number; count: number }>();
  private readonly groups = { total: 0, kept: 0, dropped: new Map<string, number>() };

  addGroup(group: GroupSummary): void {
    this.groups.total++;
    if (group.keep) this.groups.kept++;
    else this.groups.dropped.set(group.keepReason, (this.groups.dropped.get(group.keepReason) ?? 0) + 1);
  }

  add(result: ScoreResult): void {
    this.byStatus[result.status]++;
    if (result.reward === undefined) return;
    const entry = this.rewards.get(result.verifier) ?? { sum: 0, count: 0 };
    entry.sum += result.reward;
    entry.count++;
    this.rewards.set(result.verifier, entry);
  }

  get total(): number {
    return this.byStatus.OK + this.byStatus.INVALID + this.byStatus.ABORTED;
  }

  render(): string {
    const lines = [
      `scored ${this.total} samples: ${this.byStatus.OK} ok, ${this.byStatus.INVALID} invalid, ${this.byStatus.ABORTED} aborted`,
    ];
    for (const [verifier, { sum, count }] of [...this.rewards].sort(([a], [b]) => a.localeCompare(b))) {
      lines.push(`  ${verifier.padEnd(10)} mean reward ${(sum / count).toFixed(4)} over ${count} ok samples`);
    }
    if (this.groups.total > 0) {
      const dropped = [...this.groups.dropped].sort(([a], [b]) => a.localeCompare(b)).map(([reason, n]) => `${n} ${reason}`);
      lines.push(`groups: ${this.groups.total}, kept ${this.groups.kept}${dropped.length ? `, dropped ${dropped.join(', ')}` : ''}`);
    }
    return lines.join('\n');
  }
}
