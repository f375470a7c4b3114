import type { JsonObject } from '../../core/json';
import type { ScoreResult } from '../../core/sample';
import { floatLiteral } from '../wire/json';

/**
 * How the trainer routes answer: rewards as JSON floats, and a batch with an unscored sample as an
 * HTTP error whose status line itself says why (the trainers' logs print only the status line).
 */

export function floatList(values: readonly number[]): string {
  return `[${values.map(floatLiteral).join(',')}]`;
}

export interface TrainerFailure {
  status: number;
  code: string;
  /** The HTTP reason phrase: the deciding sample's reason, which aiohttp prints in the trainer's log. */
  reasonPhrase: string;
  /** Retry-After, for failures that a retry may cure. */
  retryAfter: boolean;
  body: JsonObject;
}

/**
 * The answer when some sample has no reward, null when all are OK. In order of what decides it:
 * - 501 FAILED_PRECONDITION: a verifier's service is not configured on this server. Retrying cannot
 *   help, so it is not a 503 (the message names the service; the operator must configure it).
 * - 503 ABORTED + Retry-After: infrastructure failed (sandbox, judge, deadline); a retry may succeed.
 * - 422 INVALID: the sample itself is malformed (a data bug that needs a human).
 * Both trainers retry every non-2xx answer (slime 10× with backoff, OpenRLHF 5× 1 s apart); the
 * status line is what tells their operator why.
 */
export function failureOf(results: readonly ScoreResult[]): TrainerFailure | null {
  const failed = results.filter((r) => r.status !== 'OK');
  if (failed.length === 0) return null;
  const samples = failed.map((r): JsonObject => ({ index: r.index, status: r.status, reason: r.reason, verifier: r.verifier, ...serviceOf(r) }));
  const message = failed.map((r) => `[${r.index}] ${r.status}: ${describe(r)}`).join('; ');
  const unconfigured = failed.filter((r) => r.status === 'ABORTED' && r.reason === 'service_unavailable');
  const aborted = failed.filter((r) => r.status === 'ABORTED');
  const [status, code, deciding] =
    unconfigured.length > 0 ? ([501, 'FAILED_PRECONDITION', unconfigured] as const)
    : aborted.length > 0 ? ([503, 'ABORTED', aborted] as const)
    : ([422, 'INVALID', failed] as const);
  const more = failed.length > 1 ? ` (+${failed.length - 1} more)` : '';
  return {
    status,
    code,
    reasonPhrase: reasonPhrase(`${describe(deciding[0]!)}${more}`),
    retryAfter: status === 503,
    body: { error: { code, message, samples } },
  };
}

function serviceOf(result: ScoreResult): JsonObject {
  const service = result.details['service'];
  return result.reason === 'service_unavailable' && typeof service === 'string' ? { service } : {};
}

/** One sample's reason, with the missing service named where that is the reason. */
function describe(result: ScoreResult): string {
  const service = serviceOf(result)['service'];
  if (service !== undefined) return `verifier ${result.verifier} needs service "${service}", which this server does not configure`;
  return result.reason;
}

const MAX_REASON_PHRASE = 200;

/** A reason phrase Node accepts and any client prints: printable ASCII, one line, bounded. */
export function reasonPhrase(text: string): string {
  const ascii = text.replace(/[^\x20-\x7e]/g, '?');
  return ascii.length > MAX_REASON_PHRASE ? `${ascii.slice(0, MAX_REASON_PHRASE - 3)}...` : ascii;
}
