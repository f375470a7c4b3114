import { sectionsRead } from '../../core/verifier';
import { VERDICT_VERIFIERS } from '../../services/pool-entry';
import { checkReceipts, smokeExamples } from '../fixtures/smoke';

describe('every registered verifier\'s example (the smoke test)', () => {
  it('scores its reward where it needs no service, else ABORTED service_unavailable naming the config section', async () => {
    await smokeExamples(VERDICT_VERIFIERS);
  });

  it('declares the sections its receipts hash (agent_state and terminal no longer hash the whole config)', () => {
    const registry = VERDICT_VERIFIERS.createRegistry();
    const sections = Object.fromEntries(registry.names().map((name) => [name, sectionsRead(registry.get(name)!).sort()]));
    expect(sections).toEqual({
      qa: [],
      math: [],
      search: ['judge'],
      rlhf: ['rewardModel'],
      if: ['jsIsolate', 'judge', 'sandbox'],
      code: ['sandbox'],
      puzzle: ['sandbox'],
      agent_state: ['agentState', 'sandbox'],
      terminal: ['terminal'],
    });
    checkReceipts(registry);
  });
});
