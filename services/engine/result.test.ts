import { aborted, invalid, ok, type Outcome } from '../../core/sample';
import type { EncodedChunk } from './encoded';
import { toEncodedResult, toResult } from './result';

const sample = { id: 's1', verifier: 'math', groupId: '', responseTokens: 0 };
const chunk: EncodedChunk = { wire: 'protobuf', bytes: new Uint8Array(4), ends: [2, 4] };

describe('toEncodedResult', () => {
  it('has the fields, and the order, of the whole result less its details', () => {
    const outcomes: Outcome[] = [ok(0.5, 'match', { a: 1 }), invalid('label: bad'), aborted('worker_failed', { error: 'x' })];
    for (const outcome of outcomes) {
      const encoded = toEncodedResult(sample, 3, outcome, '1.0', chunk, 1);
      const { details: _details, ...head } = toResult(sample, 3, outcome, '1.0');
      expect(Object.keys(encoded)).toEqual([...Object.keys(head), 'chunk', 'k', 'abortedDetails']);
      expect(encoded).toMatchObject(head);
      expect(encoded.chunk).toBe(chunk);
      expect(encoded.k).toBe(1);
    }
  });

  it('keeps details only for ABORTED, bounded as a whole result bounds them', () => {
    const long = 'x'.repeat(5_000);
    const abortedOutcome = aborted('worker_failed', { error: long });
    expect(toEncodedResult(sample, 0, abortedOutcome, '1.0', chunk, 0).abortedDetails).toEqual(toResult(sample, 0, abortedOutcome, '1.0').details);
    expect(toEncodedResult(sample, 0, ok(1, '', { a: 1 }), '1.0', chunk, 0).abortedDetails).toBeNull();
    expect(toEncodedResult(sample, 0, invalid('r', { a: 1 }), '1.0', chunk, 0).abortedDetails).toBeNull();
  });
});
