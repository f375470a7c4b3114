import { Registry } from '../../core/registry';
import { poolHandler, type PoolEntry } from '../../services/pool/worker';
import { VERIFIERS } from '../../verifiers';
import { tiny } from './tiny';

/** verifiers/index.ts with the newcomer's one registration line (`tiny`), as a pool entry for the tests. */
export function createRegistry(): Registry {
  return new Registry([...VERIFIERS, tiny]);
}

export default poolHandler(createRegistry);

export const NEWCOMER_VERIFIERS: PoolEntry = { module: __filename, createRegistry };
