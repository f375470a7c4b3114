import { z } from 'zod';
import type { JsonObject } from '../../core/json';
import type { BackoffPolicy } from './retry';

const jsonValue: z.ZodType<unknown> = z.json();

const endpointSection = z.strictObject({
  baseUrl: z.url().optional().describe('OpenAI-compatible base URL, e.g. http://judge:8000/v1; else $VERDICT_JUDGE_<NAME>_BASE_URL'),
  model: z.string().min(1).optional().describe('Served model name; else $VERDICT_JUDGE_<NAME>_MODEL'),
  apiKey: z.string().min(1).optional().describe('API key; prefer apiKeyEnv'),
  apiKeyEnv: z.string().min(1).optional().describe('Environment variable holding the key (default VERDICT_JUDGE_<NAME>_API_KEY)'),
  maxConcurrency: z.number().int().min(1).default(64).describe('Requests in flight to this endpoint at most'),
  maxAttempts: z.number().int().min(1).max(20).default(4).describe('Attempts per judge call, the first included'),
  attemptTimeoutMs: z.number().int().min(1).default(60_000).describe('Limit on one HTTP attempt'),
  deadlineMs: z.number().int().min(1).default(180_000).describe('Limit on one judge call, all attempts and waits, from its first send'),
  backoff: z
    .strictObject({
      initialMs: z.number().min(0).default(500),
      maxMs: z.number().min(0).default(8_000),
      jitter: z.number().min(0).max(1).default(0.25),
    })
    .default({ initialMs: 500, maxMs: 8_000, jitter: 0.25 }),
  maxRetryAfterMs: z.number().min(0).default(60_000).describe('Cap on a server-requested Retry-After wait'),
  temperature: z.number().min(0).max(2).default(0),
  maxTokens: z.number().int().min(1).default(2_048),
  extraBody: z
    .record(z.string(), jsonValue)
    .default({})
    .describe('Extra request fields, e.g. {chat_template_kwargs: {enable_thinking: false}} for Qwen3 on vLLM/SGLang'),
});

/** `judge:` in the config file. Endpoint names are what verifiers ask for ("search", "if"). */
export const judgeConfigSection = z.strictObject({
  cachePath: z
    .string()
    .min(1)
    .default('verdict-judge-cache.sqlite')
    .describe('SQLite file of judge replies, shared by all endpoints; ":memory:" for none that persists'),
  endpoints: z.record(z.string().regex(/^[a-z][a-z0-9_]*$/, 'expected a lower-case name'), endpointSection),
});

export type JudgeConfigSection = z.output<typeof judgeConfigSection>;
export type EndpointSection = z.output<typeof endpointSection>;

/** One endpoint with everything resolved: what a JudgeClient is built from. */
export interface EndpointSettings {
  name: string;
  baseUrl: string;
  model: string;
  apiKey: string;
  maxConcurrency: number;
  maxAttempts: number;
  attemptTimeoutMs: number;
  deadlineMs: number;
  backoff: BackoffPolicy;
  maxRetryAfterMs: number;
  temperature: number;
  maxTokens: number;
  extraBody: JsonObject;
}

export type Resolved = { ok: true; endpoints: EndpointSettings[] } | { ok: false; error: string };

/**
 * Fills each endpoint's URL, model and key from the config, else from the environment
 * (`VERDICT_JUDGE_SEARCH_BASE_URL`, `…_MODEL`, `…_API_KEY` for endpoint "search"). vLLM and SGLang
 * accept any key, so a missing one is sent as "EMPTY" (the openai package insists on some key).
 */
export function resolveEndpoints(section: JudgeConfigSection, env: NodeJS.ProcessEnv, root = 'judge'): Resolved {
  const endpoints: EndpointSettings[] = [];
  for (const [name, entry] of Object.entries(section.endpoints)) {
    const prefix = `VERDICT_JUDGE_${name.toUpperCase()}`;
    const baseUrl = entry.baseUrl ?? env[`${prefix}_BASE_URL`];
    const model = entry.model ?? env[`${prefix}_MODEL`];
    const path = `${root}.endpoints.${name}`;
    if (!baseUrl) return { ok: false, error: `${path}.baseUrl: required (or set ${prefix}_BASE_URL)` };
    if (!z.url().safeParse(baseUrl).success) return { ok: false, error: `${path}.baseUrl: not a URL (${prefix}_BASE_URL)` };
    if (!model) return { ok: false, error: `${path}.model: required (or set ${prefix}_MODEL)` };
    const keyVariable = entry.apiKeyEnv ?? `${prefix}_API_KEY`;
    endpoints.push({
      name,
      baseUrl,
      model,
      apiKey: entry.apiKey ?? env[keyVariable] ?? 'EMPTY',
      maxConcurrency: entry.maxConcurrency,
      maxAttempts: entry.maxAttempts,
      attemptTimeoutMs: entry.attemptTimeoutMs,
      deadlineMs: entry.deadlineMs,
      backoff: entry.backoff,
      maxRetryAfterMs: entry.maxRetryAfterMs,
      temperature: entry.temperature,
      maxTokens: entry.maxTokens,
      extraBody: entry.extraBody as JsonObject,
    });
  }
  return { ok: true, endpoints };
}
