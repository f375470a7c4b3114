import { invalid, type Outcome, type ResultHead, type RoutedSample, type ScoreResult } from '../../core/sample';
import { boundDetails } from './details';

/** A response over the engine's `maxResponseChars`: INVALID before any verifier sees it. */
export function responseTooLong(limit: number): Outcome {
  return invalid(`response: longer than ${limit} characters`);
}

/** A result's head: its outcome with the sample's id and position and the verifier's version. */
function head(sample: RoutedSample, index: number, outcome: Outcome, verifierVersion: string): ResultHead {
  const result: ResultHead = {
    id: sample.id,
    index,
    status: outcome.status,
    reason: outcome.reason,
    verifier: sample.verifier,
    verifierVersion,
  };
  if (outcome.status === 'OK') result.reward = outcome.reward;
  return result;
}

/** A sample's whole result: its head and the outcome's details, bounded for the reply. */
export function toResult(sample: RoutedSample, index: number, outcome: Outcome, verifierVersion: string): ScoreResult {
  const result = head(sample, index, outcome, verifierVersion) as ScoreResult;
  result.details = boundDetails(outcome.details);
  return result;
}
