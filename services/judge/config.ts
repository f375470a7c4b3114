import { z } from 'zod';
import type { JsonObject } from '../../core/json';
import { endpointKeys, retryPolicyOf, withRenamedKeys, type RetryPolicy } from '../resilience/policy';

const jsonValue: z.ZodType<unknown> = z.json();

/** Keys of the judge's older vocabulary, and what replaced them (the reward model's `url`). */
const RENAMED = { baseUrl: 'url' } as const;

const endpointSection = withRenamedKeys(
  z.strictObject({
    url: z.url().optional().describe('OpenAI-compatible base URL, e.g. http://judge:8000/v1; else $VERDICT_JUDGE_<NAME>_URL'),
    model: z.string().min(1).optional().describe('Served model name; else $VERDICT_JUDGE_<NAME>_MODEL'),
    apiKey: z.string().min(1).optional().describe('API key; prefer apiKeyEnv'),
    apiKeyEnv: z.string().min(1).optional().describe('Environment variable holding the key (default VERDICT_JUDGE_<NAME>_API_KEY)'),
    ...endpointKeys({
      maxConcurrency: 64,
      maxAttempts: 4,
      attemptTimeoutMs: 60_000,
      deadlineMs: 180_000,
      backoff: { initialMs: 500, maxMs: 8_000, jitter: 0.25 },
      maxRetryAfterMs: 60_000,
    }),
    temperature: z.number().min(0).max(2).default(0),
    maxTokens: z.number().int().min(1).default(2_048),
    extraBody: z
      .record(z.string(), jsonValue)
      .default({})
      .describe('Extra request fields, e.g. {chat_template_kwargs: {enable_thinking: false}} for Qwen3 on vLLM/SGLang'),
  }),
  RENAMED,
);

/** `judge:` in the config file. Endpoint names are what verifiers ask for ("search", "if"). */
export const judgeConfigSection = z.strictObject({
  cachePath: z
    .string()
    .min(1)
    .default('verdict-judge-cache.sqlite')
    .describe('SQLite file of judge replies, shared by all endpoints; ":memory:" for none that persists; parent folders are created'),
  endpoints: z.record(z.string().regex(/^[a-z][a-z0-9_]*$/, 'expected a lower-case name'), endpointSection),
});

export type JudgeConfigSection = z.output<typeof judgeConfigSection>;
export type EndpointSection = z.output<typeof endpointSection>;

/** One endpoint with everything resolved (its retry policy included): what a JudgeClient is built from. */
export interface EndpointSettings extends RetryPolicy {
  name: string;
  url: string;
  model: string;
  apiKey: string;
  maxConcurrency: number;
  temperature: number;
  maxTokens: number;
  extraBody: JsonObject;
}

export type Resolved = { ok: true; endpoints: EndpointSettings[] } | { ok: false; errors: string[] };

/**
 * Fills each endpoint's URL, model and key from the config, else from the environment
 * (`VERDICT_JUDGE_SEARCH_URL`, `…_MODEL`, `…_API_KEY` for endpoint "search"). vLLM and SGLang
 * accept any key, so a missing one is sent as "EMPTY" (the openai package insists on some key).
 * Every endpoint's problems are reported, each naming its key.
 */
export function resolveEndpoints(section: JudgeConfigSection, env: NodeJS.ProcessEnv, root = 'judge'): Resolved {
  const endpoints: EndpointSettings[] = [];
  const errors: string[] = [];
  for (const [name, entry] of Object.entries(section.endpoints)) {
    const prefix = `VERDICT_JUDGE_${name.toUpperCase()}`;
    const url = entry.url ?? env[`${prefix}_URL`];
    const model = entry.model ?? env[`${prefix}_MODEL`];
    const path = `${root}.endpoints.${name}`;
    if (!url) {
      const old = env[`${prefix}_BASE_URL`] !== undefined ? ` (${prefix}_BASE_URL is set: renamed to ${prefix}_URL)` : '';
      errors.push(`${path}.url: required (or set ${prefix}_URL)${old}`);
    } else if (!z.url().safeParse(url).success) errors.push(`${path}.url: not a URL (${prefix}_URL)`);
    if (!model) errors.push(`${path}.model: required (or set ${prefix}_MODEL)`);
    if (!url || !model || errors.length > 0) continue;
    const keyVariable = entry.apiKeyEnv ?? `${prefix}_API_KEY`;
    endpoints.push({
      name,
      url,
      model,
      apiKey: entry.apiKey ?? env[keyVariable] ?? 'EMPTY',
      maxConcurrency: entry.maxConcurrency,
      ...retryPolicyOf(entry),
      temperature: entry.temperature,
      maxTokens: entry.maxTokens,
      extraBody: entry.extraBody as JsonObject,
    });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, endpoints };
}
