import type { ScoreResult } from './sample';

export interface GroupSummary {
  groupId: string;
  size: number;
  ok: number;
  aborted: number;
  invalid: number;
  meanReward?: number;
  keep: boolean;
  keepReason: string;
}

/**
 * One summary per non-empty group id, in order of first appearance. The mean is over OK samples
 * only: ABORTED and INVALID samples say nothing about the policy.
 */
export function summarizeGroups(groupIds: readonly string[], results: readonly ScoreResult[]): GroupSummary[] {
  const byGroup = new Map<string, GroupSummary & { sum: number }>();
  results.forEach((result, i) => {
    const groupId = groupIds[i] ?? '';
    if (groupId === '') return;
    let group = byGroup.get(groupId);
    if (!group) {
      group = { groupId, size: 0, ok: 0, aborted: 0, invalid: 0, keep: true, keepReason: '', sum: 0 };
      byGroup.set(groupId, group);
    }
    group.size++;
    if (result.status === 'OK') {
      group.ok++;
      group.sum += result.reward ?? 0;
    } else if (result.status === 'ABORTED') group.aborted++;
    else group.invalid++;
  });
  return [...byGroup.values()].map(({ sum, ...group }) =>
    group.ok > 0 ? { ...group, meanReward: sum / group.ok } : group,
  );
}
