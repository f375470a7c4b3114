import type { Verifier } from '../../core/verifier';
import type { Battery } from '../battery';
import { agentAnswers, agentStates, workspaces } from './agents';
import { answers } from './answers';
import { instructions, judged, preference } from './instructions';
import { programs } from './programs';

/** The built-in batteries (docs/audit.md documents each hack). A verifier may name several in its `audit`. */
export const BATTERIES: readonly Battery[] = [answers, programs, instructions, judged, preference, agentStates, agentAnswers, workspaces];

/** The batteries a verifier's definition names (none for a verifier that is not registered). */
export function batteriesFor(verifier: Pick<Verifier, 'audit'> | undefined): Battery[] {
  const ids = verifier?.audit ?? [];
  return BATTERIES.filter((b) => ids.includes(b.id));
}

// A type, not an interface: it goes into the JSON report as it is.
export type AuditCoverage = {
  /** Verifiers whose definition names no battery: `verdict audit` cannot try a hack on them. */
  uncovered: string[];
  /** Battery ids a definition names that no battery has (a typo, or a battery since removed). */
  unknown: Array<{ verifier: string; battery: string }>;
};

/** Which of `verifiers` the built-in batteries cover, from what each definition declares. */
export function auditCoverage(verifiers: ReadonlyArray<Pick<Verifier, 'name' | 'audit'>>, batteries: readonly Battery[] = BATTERIES): AuditCoverage {
  const known = new Set(batteries.map((b) => b.id));
  return {
    uncovered: verifiers.filter((v) => !(v.audit ?? []).some((id) => known.has(id))).map((v) => v.name),
    unknown: verifiers.flatMap((v) => (v.audit ?? []).filter((id) => !known.has(id)).map((battery) => ({ verifier: v.name, battery }))),
  };
}
