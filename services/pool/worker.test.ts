import { createRegistry } from '../../verifiers';
import { poolHandler } from './worker';
import type { PoolTask } from './tasks';

const samples = [{ id: 'a', verifier: 'qa', response: '\\boxed{C}', label: { choice: 'C' }, groupId: '', responseTokens: 0, metadata: {} }];

describe('a pool thread before a chunk (services/pool/worker.ts)', () => {
  it("collects its young generation before a large request's chunk only, and not for a verifier's task", () => {
    let collections = 0;
    const handle = poolHandler(createRegistry, {}, () => collections++);
    const large: PoolTask = { op: 'score', samples, collectYoung: true };
    const small: PoolTask = { op: 'score', samples };
    const replies = [handle(small), handle(large), handle(small), handle(large), handle(large)];
    expect(collections).toBe(3);
    // The chunks were scored all the same.
    for (const reply of replies) expect(reply).toEqual({ timed: [{ outcome: expect.objectContaining({ status: 'OK', reward: 1 }), seconds: expect.any(Number) }] });
    expect(() => handle({ op: 'task', verifier: 'qa', task: 'nope', payload: null })).toThrow('no task "nope" on verifier "qa"');
    expect(collections).toBe(3);
  });
});
