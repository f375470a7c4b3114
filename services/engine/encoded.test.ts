import { aborted, invalid, ok, type Outcome, type Sample } from '../../core/sample';
import { STATUSES } from '../../core/status';
import { chunkHeads, EncodedResult, type EncodedChunk, type OutcomeColumns } from './encoded';
import { toResult } from './result';

const routes = [
  { id: 's0', verifier: 'math', groupId: '', responseTokens: 0 },
  { id: 's1', verifier: 'qa', groupId: 'g', responseTokens: 3 },
  { id: 's2', verifier: 'math', groupId: '', responseTokens: 0 },
];
const versions: Record<string, string> = { math: '2.1', qa: '1.0' };
const bytes: EncodedChunk = { wire: 'protobuf', bytes: new Uint8Array(6), ends: [2, 4, 6] };

/** A pool thread's columns for `outcomes`, as tasks.ts fills them. */
function columnsOf(outcomes: Outcome[]): OutcomeColumns {
  const n = outcomes.length;
  const columns: OutcomeColumns = { status: new Uint8Array(n), reward: new Float64Array(n), seconds: new Float64Array(n), reason: [], abortedDetails: [] };
  outcomes.forEach((outcome, k) => {
    columns.status[k] = STATUSES.indexOf(outcome.status);
    if (outcome.status === 'OK') columns.reward[k] = outcome.reward;
    columns.reason.push(outcome.reason);
    if (outcome.status === 'ABORTED') columns.abortedDetails.push([k, outcome.details]);
  });
  return columns;
}

describe('an encoded result (services/engine/encoded.ts)', () => {
  it("reads the whole result's head, less its details, from its chunk's columns", () => {
    const outcomes: Outcome[] = [ok(0.5, 'match', { a: 1 }), invalid('label: bad'), aborted('worker_failed', { error: 'x' })];
    // The chunk holds batch positions 2, 0 and 1, in that order.
    const indices = [2, 0, 1];
    const heads = chunkHeads(columnsOf(outcomes), bytes, indices, routes, (v) => versions[v]!);
    outcomes.forEach((outcome, k) => {
      const result = new EncodedResult(heads, k);
      const index = indices[k]!;
      const { details: _details, ...head } = toResult(routes[index]! as Sample, index, outcome, versions[routes[index]!.verifier]!);
      const read = { id: result.id, index: result.index, status: result.status, reason: result.reason, verifier: result.verifier, verifierVersion: result.verifierVersion };
      expect(result.status === 'OK' ? { ...read, reward: result.reward } : read).toEqual(head);
      // No reward where the status is not OK: a failure is never a 0.
      if (result.status !== 'OK') expect(result.reward).toBeUndefined();
      expect([result.chunk, result.k]).toEqual([bytes, k]);
      // Its own fields are its chunk's heads and its place: a 65,536-result reply holds 65,536 of these until it is sent.
      expect(Object.keys(result)).toEqual(['heads', 'k']);
    });
  });

  it('keeps details only for ABORTED, bounded as a whole result bounds them', () => {
    const long = 'x'.repeat(5_000);
    const outcomes = [aborted('worker_failed', { error: long }), ok(1, '', { a: 1 }), invalid('r', { a: 1 })];
    const heads = chunkHeads(columnsOf(outcomes), bytes, [0, 1, 2], routes, () => '1.0');
    expect(new EncodedResult(heads, 0).abortedDetails).toEqual(toResult(routes[0]! as Sample, 0, outcomes[0]!, '1.0').details);
    expect(new EncodedResult(heads, 1).abortedDetails).toBeNull();
    expect(new EncodedResult(heads, 2).abortedDetails).toBeNull();
  });

});
