import type { JsonObject } from '../../core/json';
import { aborted, type Outcome } from '../../core/sample';
import { SandboxError } from './types';

/** The ABORTED outcome for a sandbox that failed the job itself: never a reward. */
export function sandboxAborted(error: unknown, details: JsonObject = {}): Outcome {
  if (error instanceof SandboxError) return aborted(error.reason, { ...details, error: error.message });
  return aborted('sandbox_error', { ...details, error: error instanceof Error ? error.message : String(error) });
}

/** The ABORTED outcome when a verifier needs the sandbox and the config has no `sandbox:` section. */
export function sandboxMissing(): Outcome {
  return aborted('service_unavailable', { service: 'sandbox' });
}
