import { z } from 'zod';

/**
 * The one vocabulary of an outbound endpoint (judge and reward-model servers alike): where it is,
 * how many requests may be in flight, and how failed attempts are retried. Each service adds its
 * own keys (model, sampling, batching) beside these.
 */
export interface Backoff {
  /** Delay before the first retry. */
  initialMs: number;
  /** Cap on the exponential delay. */
  maxMs: number;
  /** Fraction in [0, 1] taken off the delay at most, to spread retries of a batch apart. */
  jitter: number;
}

export interface RetryPolicy {
  /** Attempts per call, the first included. */
  maxAttempts: number;
  /** Limit on one HTTP attempt. */
  attemptTimeoutMs: number;
  /** Limit on one call (or one sample), all attempts and waits together. */
  deadlineMs: number;
  backoff: Backoff;
  /** Cap on a server-requested Retry-After wait. */
  maxRetryAfterMs: number;
}

export interface EndpointDefaults {
  maxConcurrency: number;
  maxAttempts: number;
  attemptTimeoutMs: number;
  deadlineMs: number;
  backoff: Backoff;
  maxRetryAfterMs: number;
}

/** The shared keys of an endpoint section, with each service's defaults. */
export function endpointKeys(defaults: EndpointDefaults) {
  return {
    maxConcurrency: z.int().min(1).max(4096).default(defaults.maxConcurrency).describe('Requests in flight to this endpoint at most'),
    maxAttempts: z.int().min(1).max(20).default(defaults.maxAttempts).describe('Attempts per call, the first included'),
    attemptTimeoutMs: z.int().min(1).default(defaults.attemptTimeoutMs).describe('Limit on one HTTP attempt'),
    deadlineMs: z.int().min(1).default(defaults.deadlineMs).describe('Limit on one call, all attempts and waits together'),
    backoff: z
      .strictObject({
        initialMs: z.number().min(0).default(defaults.backoff.initialMs),
        maxMs: z.number().min(0).default(defaults.backoff.maxMs),
        jitter: z.number().min(0).max(1).default(defaults.backoff.jitter),
      })
      .refine((b) => b.maxMs >= b.initialMs, { message: 'must be >= initialMs', path: ['maxMs'] })
      .default(defaults.backoff)
      .describe('Exponential backoff: min(initialMs·2^n, maxMs), less up to jitter of it'),
    maxRetryAfterMs: z.number().min(0).default(defaults.maxRetryAfterMs).describe('Cap on a server-requested Retry-After wait'),
  };
}

/** The retry policy within a parsed endpoint section. */
export function retryPolicyOf(section: RetryPolicy): RetryPolicy {
  const { maxAttempts, attemptTimeoutMs, deadlineMs, backoff, maxRetryAfterMs } = section;
  return { maxAttempts, attemptTimeoutMs, deadlineMs, backoff, maxRetryAfterMs };
}

/**
 * Wraps an endpoint schema so that keys of an older vocabulary fail with an error naming the key
 * that replaced them (`retries: renamed to maxAttempts …`), rather than "unknown field".
 */
export function withRenamedKeys<S extends z.ZodType>(schema: S, renamed: Readonly<Record<string, string>>) {
  return z
    .unknown()
    .superRefine((value, ctx) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
      for (const [old, now] of Object.entries(renamed)) {
        if (Object.hasOwn(value, old)) ctx.addIssue({ code: 'custom', path: [old], message: `renamed: use ${now}`, continue: false });
      }
    })
    .pipe(schema);
}
