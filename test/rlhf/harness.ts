import { readFileSync } from 'node:fs';
import type { ChatMessage } from '../../core/chat';
import { createRewardModels, type RewardModelEndpoint } from '../../services/reward-model';
import { rewardModelConfigSchema } from '../../services/reward-model/config';
import { sharedDir } from './repo';

export const MODEL = 'Skywork/Skywork-Reward-V2-Qwen3-8B';
export const QWEN3_TEMPLATE = readFileSync(sharedDir('data', 'chat-templates', 'qwen3.jinja'), 'utf8');

/** Fast retries so failure tests take milliseconds. */
const QUICK = { backoff: { initialMs: 1, maxMs: 5 } };

/** One endpoint built the way the service builds it: through the config schema and its defaults. */
export function endpoint(fields: Record<string, unknown>): RewardModelEndpoint {
  const withTemplate = fields['chatTemplate'] === undefined && needsTemplate(fields) ? { chatTemplate: 'qwen3' } : {};
  const config = rewardModelConfigSchema.parse({
    endpoints: { rm: { model: MODEL, ...QUICK, ...withTemplate, ...fields } },
  });
  return createRewardModels(config).get('rm')!;
}

function needsTemplate(fields: Record<string, unknown>): boolean {
  return fields['server'] === 'sglang' || fields['input'] === 'text';
}

export function chat(user: string, assistant: string): ChatMessage[] {
  return [
    { role: 'user', content: user },
    { role: 'assistant', content: assistant },
  ];
}

/** The `text` strings of every request a fake received (SGLang `text`, vLLM `input`). */
export function sentTexts(requests: ReadonlyArray<{ body: unknown }>): string[][] {
  return requests.map((r) => {
    const body = r.body as { text?: string[]; input?: string[] };
    return body.text ?? body.input ?? [];
  });
}
