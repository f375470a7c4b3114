import type { Json, JsonObject } from '../../core/json';
import type { Outcome, Sample } from '../../core/sample';
import { scoreAsync } from '../../core/score';
import type { AsyncVerifier, Services } from '../../core/verifier';
import { ifVerifier } from '../../verifiers/if';

export { packageRoot as repoRoot } from '../../services/paths';
export { sharedPath as sharedDir } from '../fixtures/shared';

export function sample(response: string, label: JsonObject, metadata: JsonObject = {}): Sample {
  return { id: 's', verifier: 'if', response, label, groupId: '', responseTokens: 0, metadata };
}

/**
 * Scores as the engine does for an async verifier: label validation, then `score` with `compute`
 * running the verifier's own pure task in this thread instead of on the pool.
 */
export async function scoreIf(response: string, label: JsonObject, options: { metadata?: JsonObject; services?: Services } = {}): Promise<Outcome> {
  const verifier = ifVerifier as AsyncVerifier;
  const tasks = verifier.tasks ?? {};
  return scoreAsync(
    verifier,
    sample(response, label, options.metadata),
    {
      signal: new AbortController().signal,
      services: options.services ?? {},
      compute: async (task: string, payload: Json) => {
        const fn = tasks[task];
        if (!fn) throw new Error(`no task ${task}`);
        return fn(JSON.parse(JSON.stringify(payload)) as Json);
      },
    },
  );
}
