import { Registry } from '../core/registry';
import type { Verifier } from '../core/verifier';
import { agentState } from './agent_state';
import { code } from './code';
import { ifVerifier } from './if';
import { math } from './math';
import { puzzle } from './puzzle';
import { qa } from './qa';
import { rlhf } from './rlhf';
import { search } from './search';
import { terminal } from './terminal';

/**
 * Every verifier Verdict serves. Adding one: a folder under verifiers/ and one line here; what it
 * declares (sections, example) reaches receipts, the playground, `verdict check --examples` and the
 * smoke test from its definition (README, Adding a verifier).
 */
export const VERIFIERS: readonly Verifier[] = [
  qa,
  math,
  search,
  rlhf,
  ifVerifier,
  code,
  puzzle,
  agentState,
  terminal,
];

/** The registry of the main thread and of every pool thread (through services/pool-entry.ts). */
export function createRegistry(): Registry {
  return new Registry(VERIFIERS);
}
