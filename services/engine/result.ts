import type { Outcome, Sample, ScoreResult } from '../../core/sample';
import { boundDetails } from './details';

/**
 * A sample's result: its outcome with the sample's id and position, the verifier's version, and
 * details bounded for the reply; written into `into` when given (a result that carries its encoding).
 */
export function toResult(sample: Sample, index: number, outcome: Outcome, verifierVersion: string, into: object = {}): ScoreResult {
  const result = into as ScoreResult;
  result.id = sample.id;
  result.index = index;
  result.status = outcome.status;
  result.reason = outcome.reason;
  result.verifier = sample.verifier;
  result.verifierVersion = verifierVersion;
  result.details = boundDetails(outcome.details);
  if (outcome.status === 'OK') result.reward = outcome.reward;
  return result;
}
