import { checkAgainst } from './label';
import { aborted, invalid, type Outcome, type Sample } from './sample';
import type { PureVerifier } from './verifier';

/** Validates the label, then scores; the one path every pure verifier takes, in-process or on a worker. */
export function scorePure(verifier: PureVerifier, sample: Sample): Outcome {
  const label = checkAgainst(verifier.label, sample.label);
  if (!label.ok) return invalid(label.error);
  try {
    return verifier.score({ response: sample.response, label: label.value, sample });
  } catch (error) {
    // A thrown error is a bug in Verdict, not something the model did: drop the sample, loudly.
    return aborted('verifier_error', { error: error instanceof Error ? error.message : String(error) });
  }
}
