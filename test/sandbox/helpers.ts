import type { JsonObject } from '../../core/json';
import { Sandbox, sandboxConfigSection } from '../../services/sandbox';

export { never, scoreAsync } from '../pure/score';
export { sharedPath } from '../fixtures/shared';

/** A real sandbox with small limits, so that limit tests stay quick. */
export function startSandbox(config: JsonObject = {}): Promise<Sandbox> {
  const limits = { cpuMs: 500, memoryMb: 256, ...((config.limits as JsonObject | undefined) ?? {}) };
  return Sandbox.start(sandboxConfigSection.parse({ workers: 2, ...config, limits }));
}
