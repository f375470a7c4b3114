import { Registry } from '../../core/registry';
import { poolHandler, type PoolEntry } from '../../services/pool/worker';
import { VERIFIERS } from '../../verifiers';
import { flakyVerifier, spin } from '../fixtures/test-registry';

/** The registry of a replica whose `flaky` verifier always answers ABORTED (the others work). */
export function createRegistry(): Registry {
  return new Registry([...VERIFIERS, spin, flakyVerifier(true)]);
}

export default poolHandler(createRegistry);

export const ABORTING_VERIFIERS: PoolEntry = { module: __filename, createRegistry };
