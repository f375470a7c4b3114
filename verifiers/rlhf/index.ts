import { z } from 'zod';
import { checkAgainst } from '../../core/label';
import { rewardModelAborted } from '../../core/ports/reward-model';
import { invalid, ok } from '../../core/sample';
import { promptConversation } from '../../core/transcript';
import { defineAsync } from '../../core/verifier';
import { conversation, promptMessages, replyFor } from './conversation';
import { penalizedReward, penaltyFraction, responseLength } from './penalty';

export const rlhfLabel = z.strictObject({
  endpoint: z.string().min(1).optional().describe('Reward-model endpoint from the config (default: its default)'),
  length_penalty: z
    .strictObject({
      l0: z.int().min(0).describe('L0: length where the penalty starts'),
      lmax: z.int().min(1).describe('Lmax: length where it reaches p_max'),
      p_max: z.number().min(0).max(1).describe('Largest fraction of a positive score removed'),
      count: z
        .enum(['response_tokens', 'words', 'chars'])
        .default('response_tokens')
        .describe('response_tokens: the sample field; words/chars: counted on the response'),
    })
    .refine((p) => p.lmax > p.l0, { message: 'must be greater than l0', path: ['lmax'] })
    .optional()
    .describe('Linear length penalty; none when absent'),
});

export const rlhf = defineAsync({
  name: 'rlhf',
  version: '1.1.0',
  audit: ['reward-model-shift'],
  description:
    'Raw logit of a reward model (Skywork-Reward-V2 on SGLang or vLLM) for the conversation in metadata.messages (or the chat-templated metadata.prompt) plus the response after </think>, with an optional linear length penalty on positive scores',
  label: rlhfLabel,
  requires: ['rewardModel'],
  // The reward model's logit decides the reward: the example has none to expect.
  example: {
    label: {},
    response: 'Leaves drift and fall / the pond holds a quiet sky / one frog breaks the glass',
    metadata: { messages: [{ role: 'user', content: 'Write a haiku.' }] },
  },
  async score({ response, label, sample }, env) {
    const models = env.services.rewardModels!;
    const endpoint = models.get(label.endpoint);
    if (!endpoint) {
      return invalid(`label.endpoint: unknown reward-model endpoint "${label.endpoint}" (known: ${models.names().join(', ')})`);
    }
    const source = promptConversation(sample.metadata);
    if (!source.ok) return invalid(source.error);
    const prompt = checkAgainst(promptMessages, source.value, source.field);
    if (!prompt.ok) return invalid(prompt.error);

    const penalty = label.length_penalty;
    const length = penalty ? responseLength(response, sample.responseTokens, penalty.count) : undefined;
    if (penalty?.count === 'response_tokens' && length === 0 && response !== '') {
      return invalid('response_tokens: required by label.length_penalty (or set label.length_penalty.count)');
    }

    const reply = replyFor(response, endpoint.stripThink);
    const scored = await endpoint.score(conversation(prompt.value, reply), env.signal);
    const where = { endpoint: endpoint.name, attempts: scored.attempts };
    if (!scored.ok) return rewardModelAborted(scored, endpoint.name);

    const raw = scored.score;
    const details = { ...where, raw_score: raw, ...(reply.unclosedThink ? { unclosed_think: true } : {}) };
    if (!penalty || length === undefined) return ok(raw, 'scored', details);
    const p = penaltyFraction(length, penalty);
    const reward = penalizedReward(raw, p);
    return ok(reward, reward !== raw ? 'length_penalized' : 'scored', { ...details, length, penalty: p });
  },
});
