import type { Json, JsonObject } from '../../core/json';
import type { Outcome, Sample } from '../../core/sample';
import { scoreAsync as scoreAsyncIn } from '../../core/score';
import type { AsyncVerifier, Services, Verifier } from '../../core/verifier';

/**
 * test/pure/ holds test helpers that import only domain code, so that unit tests beside core/,
 * verifiers/ and rubrics/ may use them: lint:deps holds this folder to the domain rule.
 */

export const never = new AbortController().signal;

/** Validates the label, then scores with `services`, as the engine does for async verifiers. */
export async function scoreAsync(
  verifier: Verifier,
  response: string,
  label: JsonObject,
  services: Services,
  signal: AbortSignal = never,
): Promise<Outcome> {
  const sample: Sample = { id: 's', verifier: verifier.name, response, label, groupId: '', responseTokens: 0, metadata: {} };
  const compute = async (): Promise<Json> => {
    throw new Error('no compute tasks in these verifiers');
  };
  return scoreAsyncIn(verifier as AsyncVerifier, sample, { signal, services, compute });
}
