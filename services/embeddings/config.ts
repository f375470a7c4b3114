import { z } from 'zod';
import { endpointKeys, retryPolicyOf, type RetryPolicy } from '../resilience/policy';

const endpointSection = z.strictObject({
  url: z.url().optional().describe('OpenAI-compatible base URL, e.g. http://embed:8000/v1; else $VERDICT_EMBEDDINGS_<NAME>_URL'),
  model: z.string().min(1).optional().describe('Served model name; else $VERDICT_EMBEDDINGS_<NAME>_MODEL'),
  apiKey: z.string().min(1).optional().describe('API key; prefer apiKeyEnv'),
  apiKeyEnv: z.string().min(1).optional().describe('Environment variable holding the key (default VERDICT_EMBEDDINGS_<NAME>_API_KEY)'),
  batchSize: z.int().min(1).max(2048).default(64).describe('Texts per request (the `input` array)'),
  dimensions: z
    .int()
    .min(1)
    .optional()
    .describe('Vector length every reply must have; sent as `dimensions` (Matryoshka models on vLLM and OpenAI); else the first reply sets it'),
  ...endpointKeys({
    maxConcurrency: 8,
    maxAttempts: 6,
    attemptTimeoutMs: 120_000,
    deadlineMs: 600_000,
    backoff: { initialMs: 500, maxMs: 16_000, jitter: 0.25 },
    maxRetryAfterMs: 120_000,
  }),
});

/** `embeddings:` in the config file: named OpenAI-compatible `/v1/embeddings` endpoints and one SQLite cache. */
export const embeddingsConfigSection = z.strictObject({
  cachePath: z
    .string()
    .min(1)
    .default('verdict-embeddings-cache.sqlite')
    .describe('SQLite file of vectors keyed by model and text, shared by all endpoints; ":memory:" for none that persists; parent folders are created'),
  endpoints: z.record(z.string().regex(/^[a-z][a-z0-9_]*$/, 'expected a lower-case name'), endpointSection),
});

export type EmbeddingsConfigSection = z.output<typeof embeddingsConfigSection>;

/** One endpoint with everything resolved: what an EmbeddingsClient is built from. */
export interface EmbeddingsEndpoint extends RetryPolicy {
  name: string;
  url: string;
  model: string;
  apiKey: string;
  maxConcurrency: number;
  batchSize: number;
  dimensions: number | null;
}

/**
 * Endpoint NAME from the section, its URL, model and key filled from the environment when the file
 * leaves them out (`VERDICT_EMBEDDINGS_DEFAULT_URL` for endpoint "default"). An endpoint the file
 * does not name at all is taken from the environment alone, with the defaults of every other key,
 * so `verdict curate dense` runs without a config file. Every problem is reported, each naming its key.
 */
export function resolveEmbeddingsEndpoint(
  section: EmbeddingsConfigSection | undefined,
  name: string,
  env: NodeJS.ProcessEnv,
  root = 'embeddings',
): { ok: true; endpoint: EmbeddingsEndpoint } | { ok: false; errors: string[] } {
  const entry = section?.endpoints[name] ?? endpointSection.parse({});
  const prefix = `VERDICT_EMBEDDINGS_${name.toUpperCase()}`;
  const path = `${root}.endpoints.${name}`;
  const url = entry.url ?? env[`${prefix}_URL`];
  const model = entry.model ?? env[`${prefix}_MODEL`];
  const errors: string[] = [];
  if (!url) errors.push(`${path}.url: required (or set ${prefix}_URL)`);
  else if (!z.url().safeParse(url).success) errors.push(`${path}.url: not a URL (${prefix}_URL)`);
  if (!model) errors.push(`${path}.model: required (or set ${prefix}_MODEL)`);
  if (errors.length > 0 || !url || !model) return { ok: false, errors };
  return {
    ok: true,
    endpoint: {
      name,
      url,
      model,
      apiKey: entry.apiKey ?? env[entry.apiKeyEnv ?? `${prefix}_API_KEY`] ?? 'EMPTY',
      maxConcurrency: entry.maxConcurrency,
      batchSize: entry.batchSize,
      dimensions: entry.dimensions ?? null,
      ...retryPolicyOf(entry),
    },
  };
}
