import type { JsonObject } from './json';

/** One rollout to score: the domain view of the proto's `Sample`. */
export interface Sample {
  id: string;
  verifier: string;
  response: string;
  label: JsonObject;
  groupId: string;
  responseTokens: number;
  metadata: JsonObject;
}

/**
 * What the engine routes a sample by, and all a transport that leaves samples in their wire bytes
 * reads of each one: the verifier to send it to, its group, its length in tokens. The response, label
 * and metadata are read only where the sample is scored (services/engine/batch.ts).
 */
export type RoutedSample = Pick<Sample, 'id' | 'verifier' | 'groupId' | 'responseTokens'>;

export type Status = 'OK' | 'INVALID' | 'ABORTED';

/**
 * What a verifier decides for one sample. `reward` exists only on OK: a failure is never a 0.
 * `reason` is a short machine-readable cause ("correct", "no_answer", "label.gold: required").
 */
export type Outcome =
  | { status: 'OK'; reward: number; reason: string; details: JsonObject }
  | { status: 'INVALID'; reason: string; details: JsonObject }
  | { status: 'ABORTED'; reason: string; details: JsonObject };

/**
 * A result without its details: what every transport's main thread knows of every result (metrics,
 * request logs, the reply size bound). Details may exist only in a result's encoded bytes
 * (services/engine/encoded.ts); code that reads them takes a `ScoreResult`.
 */
export interface ResultHead {
  id: string;
  index: number;
  status: Status;
  reward?: number;
  reason: string;
  verifier: string;
  verifierVersion: string;
}

/** The result for one input sample, in the shape of the proto's `ScoreResult`. */
export interface ScoreResult extends ResultHead {
  details: JsonObject;
}

export function ok(reward: number, reason: string, details: JsonObject = {}): Outcome {
  return { status: 'OK', reward, reason, details };
}

export function invalid(reason: string, details: JsonObject = {}): Outcome {
  return { status: 'INVALID', reason, details };
}

export function aborted(reason: string, details: JsonObject = {}): Outcome {
  return { status: 'ABORTED', reason, details };
}
