import { aborted, type Outcome } from '../../core/sample';
import type { JsonObject } from '../../core/json';
import type { FailureKind } from './errors';

/**
 * The ABORTED outcome for a judge call that gave up: `judge_malformed`, `judge_rate_limited`,
 * `judge_server_error`, `judge_timeout`, `judge_connection`, `judge_rejected`, `judge_deadline`,
 * `judge_cancelled`. A judge failure is never a reward: the trainer drops the sample.
 */
export function judgeAborted(
  failure: { kind: FailureKind; message: string; attempts: number },
  details: JsonObject = {},
): Outcome {
  return aborted(`judge_${failure.kind}`, { ...details, judge_error: failure.message, judge_attempts: failure.attempts });
}

/** The ABORTED outcome when a verifier needs a judge endpoint that is not configured. */
export function judgeMissing(endpoint: string): Outcome {
  return aborted('service_unavailable', { service: `judge.endpoints.${endpoint}` });
}
