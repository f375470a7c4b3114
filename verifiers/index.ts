import { Registry } from '../core/registry';
import type { Verifier } from '../core/verifier';
import { code } from './code';
import { ifVerifier } from './if';
import { math } from './math';
import { puzzle } from './puzzle';
import { qa } from './qa';
import { rlhf } from './rlhf';
import { search } from './search';

/** Every verifier Verdict serves. Adding one: a folder under verifiers/ and one line here. */
export const VERIFIERS: readonly Verifier[] = [
  qa,
  math,
  search,
  rlhf,
  ifVerifier,
  code,
  puzzle,
];

/** The pool's worker threads build their registry through this too (services/pool/worker.ts). */
export function createRegistry(): Registry {
  return new Registry(VERIFIERS);
}
