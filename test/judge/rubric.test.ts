import { judgeRubric, judgeRubrics, rubricPrompt } from '../../verifiers/if/judge';
import { rig, type Rig } from './harness';

const conversation = [
  { role: 'system', content: 'You are a cooking assistant.' },
  { role: 'user', content: 'I am allergic to shellfish. Suggest a dinner.' },
  { role: 'assistant', content: '<think>private</think>Noted. Any cuisine?' },
  { role: 'user', content: 'Italian please.' },
];

describe('judge rubrics', () => {
  let r: Rig;
  beforeEach(async () => {
    r = await rig();
  });
  afterEach(async () => {
    await r.close();
  });

  it('shows the judge the conversation, the response and the rubric, without earlier reasoning', () => {
    const [message] = rubricPrompt(conversation, 'Try mushroom risotto.', 'Does the response avoid "shrimp"?');
    expect(message!.content).toContain('[turn 2: user]\nI am allergic to shellfish. Suggest a dinner.');
    expect(message!.content).toContain('[turn 3: assistant]\nNoted. Any cuisine?');
    expect(message!.content).not.toContain('private');
    expect(message!.content).toContain('<response>\nTry mushroom risotto.\n</response>');
    expect(message!.content).toContain('<rubric>\nDoes the response avoid "shrimp"?\n</rubric>');
  });

  it('asks for {reason, satisfied} and returns the verdict', async () => {
    const result = await judgeRubric(r.client(), { conversation, response: 'Shrimp scampi!', question: 'Does the response avoid "shrimp"?' });
    expect(result).toMatchObject({ ok: true, value: { satisfied: false, reason: 'contains shrimp' } });
    expect(r.server.requests[0]!.schemaName).toBe('rubric_verdict');
  });

  it('passes when every rubric is satisfied', async () => {
    const out = await judgeRubrics(r.client(), {
      conversation,
      response: 'Mushroom risotto, an Italian classic.',
      questions: ['Does the response avoid "shrimp"?', 'Does the response mention "risotto"?'],
    });
    expect(out).toMatchObject({ kind: 'pass', verdicts: [{ satisfied: true }, { satisfied: true }] });
    expect(r.server.calls).toBe(2);
  });

  it('stops at the first unsatisfied rubric: later ones cost no call', async () => {
    const out = await judgeRubrics(r.client(), {
      conversation,
      response: 'Shrimp linguine.',
      questions: ['Does the response mention "linguine"?', 'Does the response avoid "shrimp"?', 'Does the response mention "Italian"?'],
    });
    expect(out).toMatchObject({ kind: 'fail', index: 1 });
    expect(r.server.calls).toBe(2);
  });

  it('is aborted, not failed, when the judge gives up', async () => {
    for (let i = 0; i < 3; i++) r.server.faults.push({ kind: 'malformed' });
    const out = await judgeRubrics(r.client(), {
      conversation,
      response: 'Risotto.',
      questions: ['Does the response mention "risotto"?', 'Does the response avoid "shrimp"?'],
    });
    expect(out).toMatchObject({ kind: 'aborted', index: 0, failure: { kind: 'malformed', attempts: 3 } });
    expect(r.server.calls).toBe(3);
  });
});
