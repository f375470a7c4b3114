import { Registry } from '../../core/registry';
import { VERIFIERS } from '../../verifiers';
import { flakyVerifier, spin } from '../fixtures/test-registry';

/** The registry of a replica whose `flaky` verifier always answers ABORTED (the others work). */
export function createRegistry(): Registry {
  return new Registry([...VERIFIERS, spin, flakyVerifier(true)]);
}

export const ABORTING_REGISTRY_MODULE = __filename;
