import { responseFromQuery, trainerLabel } from '../../services/http/trainers';
import type { RunningServer } from '../../services/server';
import { sample } from '../fixtures/samples';
import { startTestServer } from '../fixtures/server';

describe('trainer labels → verifier and Verdict label', () => {
  const route = { verifier: 'qa', labelField: null };

  it('a JSON object (or a string holding one) is the label; its verifier key picks the verifier', () => {
    expect(trainerLabel({ choice: 'C' }, route, 'labels[0]')).toEqual({ ok: true, verifier: 'qa', label: { choice: 'C' } });
    expect(trainerLabel('{"verifier":"math","gold":"42"}', route, 'labels[0]')).toEqual({ ok: true, verifier: 'math', label: { gold: '42' } });
    expect(trainerLabel('{"gold":', route, 'labels[2]')).toEqual({ ok: false, error: 'labels[2]: looks like a JSON object but does not parse' });
    expect(trainerLabel({ verifier: 7 }, route, 'label')).toEqual({ ok: false, error: 'label.verifier: expected string' });
  });

  it('a plain value fills the route label field, wrapped in a list for a field ending in []', () => {
    expect(trainerLabel('42', { verifier: 'math', labelField: 'gold' }, 'label')).toEqual({ ok: true, verifier: 'math', label: { gold: '42' } });
    expect(trainerLabel('Paris', { verifier: 'qa', labelField: 'answers[]' }, 'label')).toEqual({ ok: true, verifier: 'qa', label: { answers: ['Paris'] } });
    expect(trainerLabel(['a', 'b'], { verifier: 'qa', labelField: 'answers[]' }, 'label')).toEqual({ ok: true, verifier: 'qa', label: { answers: ['a', 'b'] } });
    expect(trainerLabel('C', route, 'labels[1]')).toEqual({
      ok: false,
      error: 'labels[1]: a plain label needs ?label_field=<field> on the URL, or send a JSON object label',
    });
  });

  it('null is an empty label, for the verifier schema to judge', () => {
    expect(trainerLabel(null, route, 'label')).toEqual({ ok: true, verifier: 'qa', label: {} });
  });
});

describe("OpenRLHF's query → the response", () => {
  it('strips the prompt prefix and the trailing special tokens of a decode with skip_special_tokens=False', () => {
    const prompt = '<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n';
    expect(responseFromQuery(`${prompt}<think>x</think>\\boxed{4}<|im_end|><|endoftext|>`, prompt)).toBe('<think>x</think>\\boxed{4}');
    expect(responseFromQuery('Answer: 4 </s>', 'other prompt')).toBe('Answer: 4');
    // Special tokens inside the response stay: only the trailing run is the decode's end of sequence.
    expect(responseFromQuery('a <|im_end|> b', undefined)).toBe('a <|im_end|> b');
  });
});

describe('group options over the HTTP gateway', () => {
  let server: RunningServer;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer({ workers: 1 });
    base = `http://127.0.0.1:${server.httpPort}`;
  });
  afterAll(() => server.shutdown());

  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('POST /v1/score with groupOptions shapes rewards, sets advantages and the keep verdict', async () => {
    const qa = (response: string, responseTokens: number) => sample({ verifier: 'qa', groupId: 'g', response, responseTokens, label: { choice: 'C' } });
    const res = await post('/v1/score', {
      samples: [qa('\\boxed{C}', 200), qa('\\boxed{C}', 700), qa('\\boxed{A}', 100)],
      groupOptions: { length_penalty: true, maxLength: 1200, advantage: 'mean' },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: Array<Record<string, unknown>>; groups: unknown[] };
    // 700 tokens: 0.5 × 500 / 1000 = 0.25 → rewards 1, 0.75, 0; mean 1.75 / 3.
    expect(body.results.map((r) => [r.reward, (r.details as Record<string, unknown>).rawReward])).toEqual([
      [1, 1],
      [0.75, 1],
      [0, 0],
    ]);
    const mean = 1.75 / 3;
    [1 - mean, 0.75 - mean, -mean].forEach((expected, i) => expect(body.results[i]!.advantage).toBeCloseTo(expected, 12));
    expect(body.groups).toEqual([
      { groupId: 'g', size: 3, ok: 3, aborted: 0, invalid: 0, keep: true, keepReason: '', shortestCorrect: 200, meanReward: expect.closeTo(mean, 12), meanRawReward: 2 / 3 },
    ]);
  });

  it('refuses unusable group options with 400 naming the field', async () => {
    const res = await post('/v1/score', { samples: [], groupOptions: { keepMin: 0.5, keepMax: 0.2 } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 'INVALID_ARGUMENT', message: 'group_options.keep_max: must be greater than keep_min (0.5): the window (keep_min, keep_max] is empty' },
    });
    const typo = await post('/v1/score', { samples: [], groupOptions: { lenghtPenalty: true } });
    expect(((await typo.json()) as { error: { message: string } }).error.message).toBe('group_options.lenghtPenalty: unknown field');
  });

  it('trainer routes refuse bodies that are not their protocol', async () => {
    const res = await post('/slime/qa', { prompt: 'p', label: 'C' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: 'INVALID_ARGUMENT', message: 'response: expected a string' } });
    const openrlhf = await post('/openrlhf', { query: 'not a list' });
    expect(openrlhf.status).toBe(400);
  });
});
