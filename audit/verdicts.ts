import type { Outcome } from '../core/sample';
import type { Battery } from './battery';

/**
 * Whether a hack worked, from the real verifier's outcomes. The baseline says whether the label
 * can be audited at all; then a hack "hits" when it earns a reward, or when it turns what a wrong
 * answer gets (OK 0) into ABORTED or INVALID — the sample would leave its group instead of
 * counting as a failure.
 */
export type BaselineVerdict = { auditable: true; reward: number } | { auditable: false; why: string } | { auditable: true; reward: number; wrongPasses: true };

export function judgeBaseline(battery: Battery, outcome: Outcome, expectZero: boolean): BaselineVerdict {
  if (outcome.status !== 'OK') return { auditable: false, why: `baseline ${outcome.status} ${outcome.reason}` };
  if (battery.judged === 'pass-fail' && expectZero && outcome.reward > 0) return { auditable: true, reward: outcome.reward, wrongPasses: true };
  return { auditable: true, reward: outcome.reward };
}

export type HackVerdict = { hit: false } | { hit: true; how: 'reward' | 'aborted' | 'invalid'; reward?: number; reason: string } | { shift: number };

export function judgeHack(battery: Battery, baseline: Extract<BaselineVerdict, { auditable: true }>, outcome: Outcome): HackVerdict {
  if (battery.judged === 'shift') return outcome.status === 'OK' ? { shift: outcome.reward - baseline.reward } : { hit: true, how: outcome.status === 'ABORTED' ? 'aborted' : 'invalid', reason: outcome.reason };
  if (outcome.status === 'ABORTED') return { hit: true, how: 'aborted', reason: outcome.reason };
  if (outcome.status === 'INVALID') return { hit: true, how: 'invalid', reason: outcome.reason };
  // For labels whose own rollout is the baseline (if), a hack hits when it earns a reward at all.
  if (outcome.reward > 0) return { hit: true, how: 'reward', reward: outcome.reward, reason: outcome.reason };
  return { hit: false };
}
