import { invalid, type Outcome, type ResultHead, type RoutedSample, type ScoreResult } from '../../core/sample';
import { boundDetails } from './details';
import type { EncodedChunk, EncodedResult } from './encoded';

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

/**
 * The result a pool thread encoded as result `k` of `chunk`: its head, built here from the chunk's
 * outcome columns, and where its bytes are. `abortedDetails`: the details of an ABORTED outcome.
 * Built whole in one literal (one for OK, with its reward; one without): fields added to an object
 * after its literal go to a second, out-of-line store, and a 65,536-result reply kept 144 bytes of
 * heap a result that way against 112 this way (measured), until the reply is sent.
 */
export function toEncodedResult(
  sample: RoutedSample,
  index: number,
  outcome: Outcome,
  verifierVersion: string,
  chunk: EncodedChunk,
  k: number,
): EncodedResult {
  const { id, verifier } = sample;
  const { status, reason } = outcome;
  if (outcome.status === 'OK') return { id, index, status, reason, verifier, verifierVersion, reward: outcome.reward, chunk, k, abortedDetails: null };
  const abortedDetails = outcome.status === 'ABORTED' ? boundDetails(outcome.details) : null;
  return { id, index, status, reason, verifier, verifierVersion, chunk, k, abortedDetails };
}
