import type { JsonObject } from '../../core/json';
import type { Sample, ScoreResult } from '../../core/sample';
import type { Services } from '../../core/verifier';
import { Engine } from '../../services/engine/engine';
import type { JudgePort as Judge } from '../../core/ports/judge';
import { InlineExecutor } from '../../services/pool/executor';
import { createRegistry } from '../../verifiers';
import { rig, type Rig } from './harness';

/** Judge rubrics of the `if` verifier (verifiers/if), through the engine, against the fake judge. */
describe('if verifier: judge rubrics', () => {
  let r: Rig;
  let engine: Engine;
  const registry = createRegistry();

  function start(services: Services): void {
    engine = new Engine({ registry, executor: new InlineExecutor(registry), services });
  }

  beforeEach(async () => {
    r = await rig();
    start({ judges: new Map<string, Judge>([['if', r.client({ name: 'if' })]]) });
  });
  afterEach(async () => {
    await engine.close();
    await r.close();
  });

  const messages = [
    { role: 'user', content: 'I am allergic to shellfish. Suggest an Italian dinner without commas.' },
  ];
  const sample = (response: string, rubrics: JsonObject[]): Sample => ({
    id: 's',
    verifier: 'if',
    response,
    label: { rubrics },
    groupId: '',
    responseTokens: 0,
    metadata: { messages },
  });
  const noComma = { kind: 'constraint', id: 'punctuation:no_comma' };
  const avoidShrimp = { kind: 'judge', question: 'Does the response avoid "shrimp", given the allergy stated in turn 1?' };
  const mentionRisotto = { kind: 'judge', question: 'Does the response mention "risotto"?' };
  const mentionWine = { kind: 'judge', question: 'Does the response mention "wine"?' };

  const score = async (s: Sample): Promise<ScoreResult> => (await engine.score([s]))[0]!;

  it('rewards 1 when the code rubric and every judge rubric pass, showing the judge the conversation', async () => {
    const result = await score(sample('<think>plan</think>try a mushroom risotto.', [noComma, avoidShrimp, mentionRisotto]));
    expect(result).toMatchObject({ status: 'OK', reward: 1, reason: 'all_rubrics_passed' });
    expect(r.server.calls).toBe(2);
    const prompt = r.server.requests[0]!.messages[0]!.content;
    expect(prompt).toContain('I am allergic to shellfish.');
    expect(prompt).toContain('<response>\ntry a mushroom risotto.\n</response>');
  });

  it('makes no judge call when a code rubric already failed', async () => {
    const result = await score(sample('Try a mushroom risotto, with parmesan.', [avoidShrimp, noComma, mentionRisotto]));
    expect(result).toMatchObject({ status: 'OK', reward: 0, reason: 'rubric_failed' });
    expect(r.server.calls).toBe(0);
    const verdicts = (result.details['rubrics'] as JsonObject[]).map((x) => x['verdict']);
    expect(verdicts).toEqual(['skipped', 'fail', 'skipped']);
  });

  it('stops at the first unsatisfied judge rubric', async () => {
    const result = await score(sample('shrimp risotto.', [noComma, mentionRisotto, avoidShrimp, mentionWine]));
    expect(result).toMatchObject({ status: 'OK', reward: 0, reason: 'rubric_failed' });
    expect(r.server.calls).toBe(2);
    const verdicts = (result.details['rubrics'] as JsonObject[]).map((x) => x['verdict']);
    expect(verdicts).toEqual(['pass', 'pass', 'fail', 'skipped']);
  });

  it('is ABORTED, never 0, when the judge fails', async () => {
    for (let i = 0; i < 3; i++) r.server.faults.push({ kind: 'status', status: 500, shape: 'flat' });
    const result = await score(sample('risotto.', [noComma, mentionRisotto]));
    expect(result).toMatchObject({ status: 'ABORTED', reason: 'judge_server_error' });
    expect(result.reward).toBeUndefined();
  });

  it('is ABORTED service_unavailable without an if judge, but scores failed code rubrics without one', async () => {
    await engine.close();
    start({});
    expect(await score(sample('risotto.', [noComma, mentionRisotto]))).toMatchObject({ status: 'ABORTED', reason: 'service_unavailable' });
    expect(await score(sample('Risotto, please.', [noComma, mentionRisotto]))).toMatchObject({ status: 'OK', reward: 0 });
  });
});
