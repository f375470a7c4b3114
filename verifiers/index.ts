import { Registry } from '../core/registry';
import type { Verifier } from '../core/verifier';
import { qa } from './qa';

/** Every verifier Verdict serves. Adding one: a folder under verifiers/ and one line here. */
export const VERIFIERS: readonly Verifier[] = [
  qa,
];

export function defaultRegistry(): Registry {
  return new Registry(VERIFIERS);
}
