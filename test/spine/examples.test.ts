import { SCORE_VERIFIERS } from '../../cli/pool-entry';
import { POOL_ENTRY } from '../../cli/score-command';
import { serviceHints } from '../../cli/service-hints';
import { VERDICT_VERIFIERS } from '../../services/pool-entry';
import { checkSections, smokeExamples } from '../fixtures/smoke';

describe('every registered verifier\'s example (the smoke test)', () => {
  it('scores its reward where it needs no service, else ABORTED service_unavailable naming the config section', async () => {
    await smokeExamples(VERDICT_VERIFIERS);
  });

  it('declares the sections its receipts hash (agent_state and terminal no longer hash the whole config)', () => {
    checkSections(VERDICT_VERIFIERS.createRegistry());
  });

  it('is served by the threads `verdict score` starts before it loads the verifiers (the same pool entry)', () => {
    expect(POOL_ENTRY).toBe(SCORE_VERIFIERS.module);
  });

  it('gives `verdict score` hints naming the sections each verifier declares', () => {
    const row = (verifier: string) => ({ verifier, status: 'ABORTED', reason: 'service_unavailable', count: 2 });
    expect(serviceHints(['code', 'agent_state', 'terminal', 'rlhf', 'unknown'].map(row))).toEqual([
      'hint: 2 code samples were not scored (ABORTED service_unavailable): give --config FILE with sandbox: {}, e.g. --config examples/verdict.yaml',
      'hint: 2 agent_state samples were not scored (ABORTED service_unavailable): give --config FILE with sandbox: {} and agentState: {taskDir: DIR} (examples/verdict.yaml shows the sections)',
      'hint: 2 terminal samples were not scored (ABORTED service_unavailable): give --config FILE with terminal: {taskDir: DIR} (examples/verdict.yaml shows the sections)',
      'hint: 2 rlhf samples were not scored (ABORTED service_unavailable): give --config FILE with rewardModel: {endpoints: {…}} (examples/verdict.yaml shows the sections)',
      'hint: 2 unknown samples were not scored (ABORTED service_unavailable): give --config FILE with the section its README names (examples/verdict.yaml shows the sections)',
    ]);
  });
});
