import { z } from 'zod';
import { endpointKeys, withRenamedKeys } from '../resilience/policy';

/**
 * The `rewardModel` section of the Verdict config: named endpoints, each one reward-model server
 * (or a router in front of several). Only routes that return the raw logit exist here: SGLang's
 * `/v1/classify` (softmax) and vLLM's `/classify` without the activation flag (sigmoid for a 1-label
 * head) cannot be configured.
 */

const common = {
  url: z.url({ protocol: /^https?$/ }).describe('Base URL of the server, e.g. http://10.0.0.7:30000'),
  model: z.string().min(1).describe('Model name sent in the request body'),
  // deadlineMs is per sample here, from the moment it is queued: past it the sample is ABORTED.
  ...endpointKeys({
    maxConcurrency: 4,
    maxAttempts: 4,
    attemptTimeoutMs: 60_000,
    deadlineMs: 300_000,
    backoff: { initialMs: 250, maxMs: 8_000, jitter: 0.25 },
    maxRetryAfterMs: 60_000,
  }),
  stripThink: z.boolean().default(true).describe('Score only the text after </think>'),
  chatTemplate: z
    .string()
    .min(1)
    .optional()
    .describe('Built-in template name ("qwen3"), a .jinja file, or a tokenizer_config.json'),
  bosToken: z.string().min(1).optional().describe('Stripped from the front of templated text (the server adds it)'),
};

const maxBatch = z.int().min(1).max(4096).optional().describe('Conversations per HTTP request');

const sglang = z.strictObject({
  server: z.literal('sglang'),
  ...common,
  maxBatch,
});

const vllm = z.strictObject({
  server: z.literal('vllm'),
  ...common,
  maxBatch,
  api: z
    .enum(['current', 'previous'])
    .default('current')
    .describe('current: vLLM >= 0.11.1 ("use_activation"); previous: 0.10.2 – 0.11.0 ("activation")'),
  route: z.enum(['classify', 'pooling']).default('classify'),
  input: z
    .enum(['messages', 'text'])
    .default('messages')
    .describe('messages: the server applies the chat template; text: Verdict renders it'),
});

/** Keys of the reward model's older vocabulary, and what replaced them (the judge's). */
const RENAMED = {
  concurrency: 'maxConcurrency',
  timeoutMs: 'attemptTimeoutMs',
  retries: 'maxAttempts (which counts the first attempt too: retries + 1)',
  backoffMs: 'backoff.initialMs',
  backoffMaxMs: 'backoff.maxMs',
} as const;

const endpointSchema = z
  .discriminatedUnion('server', [sglang, vllm])
  .superRefine((value, ctx) => {
    const takesText = value.server === 'sglang' || value.input === 'text';
    if (takesText && value.chatTemplate === undefined) {
      ctx.addIssue({ code: 'custom', path: ['chatTemplate'], message: 'required when the server takes text' });
    }
    if (!takesText && value.maxBatch !== undefined && value.maxBatch !== 1) {
      ctx.addIssue({ code: 'custom', path: ['maxBatch'], message: 'must be 1 with input "messages" (one conversation per request)' });
    }
  })
  .transform((value) => {
    const takesText = value.server === 'sglang' || value.input === 'text';
    return { ...value, maxBatch: value.maxBatch ?? (takesText ? 32 : 1) };
  });

const endpoint = withRenamedKeys(endpointSchema, RENAMED);

export const rewardModelConfigSchema = z
  .strictObject({
    endpoints: z
      .record(z.string().regex(/^[A-Za-z0-9_.-]+$/, 'endpoint names use letters, digits, _ . -'), endpoint)
      .refine((endpoints) => Object.keys(endpoints).length > 0, 'at least one endpoint is required'),
    default: z.string().optional().describe('Endpoint used when a label names none (default: the first)'),
  })
  .superRefine((value, ctx) => {
    if (value.default !== undefined && !(value.default in value.endpoints)) {
      ctx.addIssue({ code: 'custom', path: ['default'], message: `no endpoint named "${value.default}"` });
    }
  });

export type RewardModelConfig = z.output<typeof rewardModelConfigSchema>;
export type EndpointConfig = z.output<typeof endpoint>;
export type SglangEndpointConfig = Extract<EndpointConfig, { server: 'sglang' }>;
export type VllmEndpointConfig = Extract<EndpointConfig, { server: 'vllm' }>;
