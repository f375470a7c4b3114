import { Registry } from '../../core/registry';
import { ok } from '../../core/sample';
import { definePure } from '../../core/verifier';
import { poolHandler, type PoolEntry } from '../../services/pool/worker';
import { VERIFIERS } from '../../verifiers';
import { qa, qaLabel } from '../../verifiers/qa';

/**
 * A hand-made verifier change for the diff tests: qa 9.0.0-strict grades only \boxed{} answers, so
 * "Answer: C" that the real qa rewards 1 now scores 0 (reason not_boxed). Served by an in-test replica.
 */
const stricterQa = definePure({
  name: 'qa',
  version: '9.0.0-strict',
  description: 'qa that only accepts \\boxed{} answers (test)',
  label: qaLabel,
  example: qa.example,
  score(input) {
    if (!input.response.includes('\\boxed{')) return ok(0, 'not_boxed');
    return (qa as unknown as { score(i: typeof input): ReturnType<typeof ok> }).score(input);
  },
});

export function createRegistry(): Registry {
  return new Registry([...VERIFIERS.filter((v) => v.name !== 'qa'), stricterQa]);
}

export default poolHandler(createRegistry);

export const STRICTER_QA_VERIFIERS: PoolEntry = { module: __filename, createRegistry };
