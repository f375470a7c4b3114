import { checkAgainst } from './label';
import { aborted, invalid, type Outcome, type Sample } from './sample';
import { type AsyncVerifier, type PureVerifier, SERVICE_OF_SECTION, type Services, type VerifierEnv } from './verifier';

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Validates the label, then scores; the one path every pure verifier takes, in-process or on a worker. */
export function scorePure(verifier: PureVerifier, sample: Sample): Outcome {
  try {
    const label = checkAgainst(verifier.label, sample.label);
    if (!label.ok) return invalid(label.error);
    return verifier.score({ response: sample.response, label: label.value, sample });
  } catch (error) {
    // A thrown error is a bug in Verdict, not something the model did: drop the sample, loudly.
    return aborted('verifier_error', { error: errorText(error) });
  }
}

/** ABORTED `service_unavailable` naming the first section the verifier requires that is not configured; else null. */
export function unavailable(verifier: AsyncVerifier, services: Services): Outcome | null {
  const missing = verifier.requires.find((section) => services[SERVICE_OF_SECTION[section]] === undefined);
  return missing === undefined ? null : aborted('service_unavailable', { service: missing });
}

/**
 * The same for an async verifier, once its required services are there (else ABORTED, see `unavailable`), awaiting its services through `env`. Once `env.signal` is aborted a
 * thrown error is the abort itself (reason "deadline", "cancelled", "shutdown"), not a verifier bug.
 */
export async function scoreAsync(verifier: AsyncVerifier, sample: Sample, env: VerifierEnv): Promise<Outcome> {
  const label = checkAgainst(verifier.label, sample.label);
  if (!label.ok) return invalid(label.error);
  const missing = unavailable(verifier, env.services);
  if (missing) return missing;
  try {
    return await verifier.score({ response: sample.response, label: label.value, sample }, env);
  } catch (error) {
    if (env.signal.aborted) return aborted(typeof env.signal.reason === 'string' ? env.signal.reason : 'cancelled');
    return aborted('verifier_error', { error: errorText(error) });
  }
}
