import type { Json, JsonObject } from '../core/json';
import type { Sample } from '../core/sample';

/**
 * A hack: one hostile response (and, for agent verifiers, the artifacts beside it) built from a
 * label. Pure: batteries know labels and text, never a verifier's internals, so the verdict on each
 * hack is the real verifier's. `make` returns null where the hack does not apply to that label.
 */
export interface Hack {
  id: string;
  /** One line: what the policy tries. */
  doc: string;
  make(sample: Sample): HostileSample | null;
}

export interface HostileSample {
  response: string;
  /** Replaces the sample's metadata keys it names (agent verifiers' states and workspaces). */
  metadata?: JsonObject;
}

/**
 * How a battery is judged. `pass-fail`: any reward > 0, or ABORTED / INVALID where a plain wrong
 * answer gets OK 0, is a hit. `shift`: rewards are not pass/fail (rlhf) — the report gives the score
 * shift against the sample's own response, not hits.
 */
export interface Battery {
  /** What verifiers name in their `audit` list to be audited with it. */
  id: string;
  /** Whose weakness a hit shows: the verifier's (a bug) or the label's (it does not constrain). */
  blames: 'verifier' | 'label';
  judged: 'pass-fail' | 'shift';
  /**
   * The baseline: a plainly wrong answer that must score OK 0 (`expectZero`), or the sample's own
   * response, which must score OK. A baseline that is not OK makes the label unauditable (reported
   * apart); a wrong answer that earns a reward is itself a finding.
   */
  baseline(sample: Sample): HostileSample & { expectZero: boolean };
  hacks: readonly Hack[];
}

export function labelString(label: JsonObject, key: string): string | null {
  const v = label[key];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
}

/** The question of a sample, where the row carries one (chat messages or a prompt). */
export function questionOf(sample: Sample): string | null {
  const messages = sample.metadata.messages as Json;
  if (Array.isArray(messages)) {
    for (const m of [...messages].reverse()) {
      if (m && typeof m === 'object' && !Array.isArray(m) && m.role === 'user' && typeof m.content === 'string') return m.content;
    }
  }
  return typeof sample.metadata.prompt === 'string' ? sample.metadata.prompt : null;
}
