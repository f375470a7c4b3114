import type { Json, JsonObject } from '../../core/json';
import type { Outcome, Sample } from '../../core/sample';
import { scoreAsync as scoreAsyncIn } from '../../core/score';
import type { AsyncVerifier, Services, Verifier } from '../../core/verifier';
import { Sandbox, sandboxConfigSection } from '../../services/sandbox';

export { sharedPath } from '../fixtures/shared';

/** A real sandbox with small limits, so that limit tests stay quick. */
export function startSandbox(config: JsonObject = {}): Promise<Sandbox> {
  const limits = { cpuMs: 500, memoryMb: 256, ...((config.limits as JsonObject | undefined) ?? {}) };
  return Sandbox.start(sandboxConfigSection.parse({ workers: 2, ...config, limits }));
}

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
