import type { Outcome, Sample, ScoreResult } from '../../core/sample';
import { boundDetails } from './details';

/** A sample's result: its outcome with the sample's id and position, the verifier's version, and details bounded for the reply. */
export function toResult(sample: Sample, index: number, outcome: Outcome, verifierVersion: string): ScoreResult {
  const result: ScoreResult = {
    id: sample.id,
    index,
    status: outcome.status,
    reason: outcome.reason,
    verifier: sample.verifier,
    verifierVersion,
    details: boundDetails(outcome.details),
  };
  if (outcome.status === 'OK') result.reward = outcome.reward;
  return result;
}
