import type { Battery } from '../battery';

/**
 * agent_state: states the policy shaped to leave its group instead of scoring 0 — not a database,
 * an empty one, one that never loads. Each must be OK 0: a reward would be a false pass, and ABORTED or
 * INVALID would let the sample leave its group. (The terminal verifier's hostile
 * workspaces are exercised by its own tests, test/terminal/hostile.test.ts; a tar writer for a
 * battery here is left for later.)
 */
const state = (sql: string) => ({ sql });

export const agentStates: Battery = {
  id: 'agent-states',
  blames: 'verifier',
  verifiers: ['agent_state'],
  judged: 'pass-fail',
  baseline: (sample) => ({ response: sample.response, expectZero: false }),
  hacks: [
    { id: 'not-a-database', doc: 'bytes that are not a database', make: () => ({ response: 'done', metadata: { finalState: { sqlite: Buffer.from('not a database, just text'.repeat(40)).toString('base64') } } }) },
    { id: 'empty-database', doc: 'an empty database', make: () => ({ response: 'done', metadata: { finalState: state('') } }) },
    { id: 'broken-dump', doc: 'a dump that does not load', make: () => ({ response: 'done', metadata: { finalState: state('CREATE TABLE (') } }) },
    { id: 'endless-dump', doc: 'a dump that never finishes loading', make: () => ({ response: 'done', metadata: { finalState: state('CREATE TABLE t (x); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) INSERT INTO t SELECT x FROM c;') } }) },
  ],
};
