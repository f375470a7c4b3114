// The pool entry of `verdict score`: Verdict's verifiers, as services/pool-entry.ts serves them, and
// the job that turns a block of JSONL lines into result rows on the thread (cli/dataset/pool-rows.ts).
import { poolHandler, type PoolEntry } from '../services/pool/worker';
import { createRegistry } from '../verifiers';
import { scoreRows } from './dataset/pool-rows';

export default poolHandler(createRegistry, { rows: scoreRows });

export const SCORE_VERIFIERS: PoolEntry = { module: __filename, createRegistry };
