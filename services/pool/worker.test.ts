import { createRegistry } from '../../verifiers';
import { poolHandler } from './worker';
import type { PoolTask } from './tasks';

const chunk: PoolTask = {
  op: 'score',
  samples: [{ id: 'a', verifier: 'qa', response: '\\boxed{C}', label: { choice: 'C' }, groupId: '', responseTokens: 0, metadata: {} }],
};

describe('a pool thread between chunks (services/pool/worker.ts)', () => {
  it("collects its young generation before it scores each chunk, and not for a verifier's task", () => {
    let collections = 0;
    const handle = poolHandler(createRegistry, {}, () => collections++);
    const [first, second] = [handle(chunk), handle(chunk)];
    expect(collections).toBe(2);
    // The chunks were scored all the same.
    for (const reply of [first, second]) expect(reply).toEqual({ timed: [{ outcome: expect.objectContaining({ status: 'OK', reward: 1 }), seconds: expect.any(Number) }] });
    expect(() => handle({ op: 'task', verifier: 'qa', task: 'nope', payload: null })).toThrow('no task "nope" on verifier "qa"');
    expect(collections).toBe(2);
  });
});
