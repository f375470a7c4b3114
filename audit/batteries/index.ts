import type { Battery } from '../battery';
import { agentAnswers, agentStates, workspaces } from './agents';
import { answers } from './answers';
import { instructions, judged, preference } from './instructions';
import { programs } from './programs';

/** The built-in batteries (docs/audit.md documents each hack). A verifier may have several. */
export const BATTERIES: readonly Battery[] = [answers, programs, instructions, judged, preference, agentStates, agentAnswers, workspaces];

export function batteriesFor(verifier: string): Battery[] {
  return BATTERIES.filter((b) => b.verifiers.includes(verifier));
}
