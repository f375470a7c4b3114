/**
 * A results file as `verdict score` writes it, generated from a seed: `line`, `rollout`, statuses in
 * its STATUS_ names, INVALID reasons with their line, receipts, and two pass-through columns
 * (finish_reason, latency_ms) that the report reads. Also the counts a page must show for it.
 */
export interface Generated {
  rows: Array<Record<string, unknown>>;
  expected: { total: number; ok: number; invalid: number; aborted: number; truncated: number; groups: number; inWindow: number; byVerifier: Record<string, number> };
}

const VERIFIERS = ['math', 'qa', 'code', 'if'];

export function generateResults(total: number, rollouts = 4): Generated {
  let state = 12345;
  // A linear congruential generator: the same file on every run.
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const rows: Array<Record<string, unknown>> = [];
  const e = { total, ok: 0, invalid: 0, aborted: 0, truncated: 0, groups: 0, inWindow: 0, byVerifier: {} as Record<string, number> };
  const groupSums = new Map<number, { sum: number; n: number }>();
  for (let i = 0; i < total; i++) {
    const line = Math.floor(i / rollouts) + 1;
    const verifier = VERIFIERS[(line - 1) % VERIFIERS.length]!;
    e.byVerifier[verifier] = (e.byVerifier[verifier] ?? 0) + 1;
    const roll = next();
    const truncated = next() < 0.05;
    if (truncated) e.truncated++;
    const base = { id: `s${i}`, line, rollout: i % rollouts, verifier, verifierVersion: '1.0.0', receipt: { verifier: `${verifier}@1.0.0`, config: 'c0', input: 'i0' }, finish_reason: truncated ? 'length' : 'stop', latency_ms: Math.round(next() * 1000) };
    if (roll < 0.02) {
      e.invalid++;
      rows.push({ ...base, status: 'STATUS_INVALID', reason: `line ${line}: label.gold: required`, details: {} });
    } else if (roll < 0.03) {
      e.aborted++;
      rows.push({ ...base, status: 'STATUS_ABORTED', reason: 'deadline_exceeded', details: { service: 'sandbox' } });
    } else {
      e.ok++;
      const reward = truncated ? 0 : next() < 0.5 ? 1 : 0;
      rows.push({ ...base, status: 'STATUS_OK', reward, reason: reward === 1 ? 'correct' : 'wrong_answer', details: { extracted: String(i % 97) } });
      const g = groupSums.get(line) ?? { sum: 0, n: 0 };
      g.sum += reward;
      g.n++;
      groupSums.set(line, g);
    }
  }
  for (const g of groupSums.values()) {
    if (g.n < 2) continue;
    e.groups++;
    const rate = g.sum / g.n;
    if (rate > 0 && rate <= 0.8) e.inWindow++;
  }
  return { rows, expected: e };
}
