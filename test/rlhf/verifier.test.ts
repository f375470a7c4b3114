import { scoreAsync } from '../../core/score';
import type { JsonObject } from '../../core/json';
import type { Outcome, Sample } from '../../core/sample';
import type { AsyncVerifier, Services, VerifierEnv } from '../../core/verifier';
import { createRewardModels } from '../../services/reward-model';
import { rewardModelConfigSchema } from '../../services/reward-model/config';
import { rlhf } from '../../verifiers/rlhf';
import { FakeSglangServer } from '../fakes/fake-sglang-server';
import { MODEL, sentTexts } from './harness';

let server: FakeSglangServer;
let services: Services;

function modelsAt(url: string, extra: Record<string, unknown> = {}) {
  const config = rewardModelConfigSchema.parse({
    endpoints: {
      skywork: { server: 'sglang', url, model: MODEL, chatTemplate: 'qwen3', backoff: { initialMs: 1, maxMs: 2 }, ...extra },
      raw: { server: 'sglang', url, model: MODEL, chatTemplate: 'qwen3', stripThink: false },
    },
  });
  return createRewardModels(config);
}

beforeAll(async () => {
  server = new FakeSglangServer();
  services = { rewardModels: modelsAt(await server.listen()) };
});
afterAll(() => server.close());

const PROMPT = [{ role: 'user', content: 'Tell me a joke.' }];

function sample(response: string, label: JsonObject = {}, more: Partial<Sample> = {}): Sample {
  return { id: 's', verifier: 'rlhf', response, label, groupId: '', responseTokens: 0, metadata: { messages: PROMPT }, ...more };
}

/** Scores as the engine does: label through the schema, then `score` with the services. */
async function score(s: Sample, env: Partial<VerifierEnv> = {}): Promise<Outcome> {
  const verifier = rlhf as AsyncVerifier;
  const label = verifier.label.safeParse(s.label);
  if (!label.success) throw new Error(`bad label in test: ${label.error.message}`);
  // As the engine scores it: the services it requires are checked before `score`.
  return scoreAsync(verifier, s, { signal: new AbortController().signal, services, compute: () => Promise.reject(new Error('unused')), ...env });
}

const PENALTY = { l0: 100, lmax: 200, p_max: 0.5 };

describe('rlhf verifier', () => {
  it('rewards the raw logit, with details', async () => {
    expect(await score(sample('Why did the chicken… [[rm:23.125]]'))).toEqual({
      status: 'OK',
      reward: 23.125,
      reason: 'scored',
      details: { endpoint: 'skywork', attempts: 1, raw_score: 23.125 },
    });
  });

  it('scores the answer after </think>, not the reasoning', async () => {
    const before = server.requests.length;
    const result = await score(sample('<think>\nsecret reasoning [[rm:99]]\n</think>\n\nA pun. [[rm:4.5]]'));
    expect(result).toMatchObject({ status: 'OK', reward: 4.5 });
    const [text] = sentTexts(server.requests.slice(before))[0]!;
    expect(text).toBe(
      '<|im_start|>user\nTell me a joke.<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nA pun. [[rm:4.5]]<|im_end|>\n',
    );
  });

  it('keeps the reasoning when the endpoint says stripThink: false', async () => {
    const before = server.requests.length;
    await score(sample('<think>secret reasoning</think>A pun.', { endpoint: 'raw' }));
    expect(sentTexts(server.requests.slice(before))[0]![0]).toContain('secret reasoning');
  });

  it('scores an empty answer when <think> never closes, and says so', async () => {
    const before = server.requests.length;
    const result = await score(sample('<think>ran out of budget [[rm:50]]'));
    expect(result).toMatchObject({ status: 'OK', details: { unclosed_think: true } });
    expect(sentTexts(server.requests.slice(before))[0]![0]).not.toContain('ran out');
  });

  describe('length penalty', () => {
    const withLength = (raw: number, tokens: number) =>
      score(sample(`x [[rm:${raw}]]`, { length_penalty: PENALTY }, { responseTokens: tokens }));

    it('is no penalty at or below L0', async () => {
      expect(await withLength(10, 50)).toMatchObject({ reward: 10, reason: 'scored', details: { length: 50, penalty: 0 } });
      expect(await withLength(10, 100)).toMatchObject({ reward: 10, details: { penalty: 0 } });
    });

    it('takes p_max at Lmax and beyond', async () => {
      expect(await withLength(10, 150)).toMatchObject({ reward: 7.5, reason: 'length_penalized', details: { penalty: 0.25 } });
      expect(await withLength(10, 200)).toMatchObject({ reward: 5, details: { raw_score: 10, length: 200, penalty: 0.5 } });
      expect(await withLength(10, 5000)).toMatchObject({ reward: 5, details: { penalty: 0.5 } });
    });

    it('leaves negative and zero raw scores unchanged', async () => {
      expect(await withLength(-3.8125, 5000)).toMatchObject({ reward: -3.8125, reason: 'scored', details: { penalty: 0.5 } });
      expect(await withLength(0, 5000)).toMatchObject({ reward: 0, reason: 'scored' });
    });

    it('can count words instead of response_tokens', async () => {
      const words = Array.from({ length: 149 }, () => 'w').join(' ');
      const result = await score(sample(`${words} [[rm:10]]`, { length_penalty: { ...PENALTY, count: 'words' } }));
      expect(result).toMatchObject({ reward: 7.5, details: { length: 150 } });
    });
  });

  describe('INVALID, naming the field', () => {
    const reasonOf = async (s: Sample) => {
      const verifier = rlhf as AsyncVerifier;
      const parsed = verifier.label.safeParse(s.label);
      if (!parsed.success) return 'label schema';
      return (await score(s)).reason;
    };

    it('rejects labels through the schema', () => {
      const check = (label: JsonObject) => (rlhf as AsyncVerifier).label.safeParse(label).success;
      expect(check({})).toBe(true);
      expect(check({ length_penalty: { l0: 200, lmax: 200, p_max: 0.5 } })).toBe(false);
      expect(check({ length_penalty: { l0: 0, lmax: 200, p_max: 1.5 } })).toBe(false);
      expect(check({ penalty: {} })).toBe(false);
    });

    it('names metadata.messages, label.endpoint and response_tokens', async () => {
      expect(await reasonOf(sample('a', {}, { metadata: {} }))).toBe('metadata.messages: expected array, received undefined');
      expect(await reasonOf(sample('a', {}, { metadata: { messages: [{ role: 'robot', content: 'x' }] } }))).toMatch(
        /^metadata\.messages\[0\]\.role: /,
      );
      expect(await reasonOf(sample('a', { endpoint: 'nope' }))).toBe(
        'label.endpoint: unknown reward-model endpoint "nope" (known: skywork, raw)',
      );
      expect(await reasonOf(sample('a long answer', { length_penalty: PENALTY }))).toBe(
        'response_tokens: required by label.length_penalty (or set label.length_penalty.count)',
      );
    });
  });

  describe('ABORTED, never a reward', () => {
    it('when no reward model is configured', async () => {
      expect(await score(sample('a'), { services: {} })).toEqual({
        status: 'ABORTED',
        reason: 'service_unavailable',
        details: { service: 'rewardModel' },
      });
    });

    it('when the server keeps failing', async () => {
      server.inject(FakeSglangServer.queueFull(), 4);
      const result = await score(sample('a'));
      expect(result).toEqual({
        status: 'ABORTED',
        reason: 'reward_model_unavailable',
        details: { endpoint: 'skywork', attempts: 4, message: 'HTTP 503: The request queue is full. (after 4 attempts)' },
      });
      expect(result).not.toHaveProperty('reward');
    });
  });
});
