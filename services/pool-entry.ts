// The pool entry of the verifiers Verdict serves: each worker thread of `verdict serve`, `score`
// and `check` loads this module and nothing else of Verdict's beyond what it imports, which is
// pure domain code (core/, verifiers/, rubrics/): no service, no native addon, no metrics.
import { createRegistry } from '../verifiers';
import { poolHandler, type PoolEntry } from './pool/worker';

export default poolHandler(createRegistry);

export const VERDICT_VERIFIERS: PoolEntry = { module: __filename, createRegistry };
