import { z } from 'zod';
import type { ChatMessage } from '../chat';
import type { JsonObject } from '../json';
import { aborted, type Outcome } from '../sample';

/**
 * The judge port: what `search` and judge rubrics of `if` see of an LLM-judge endpoint
 * (`env.services.judges.get(name)`). services/judge implements it over an OpenAI-compatible server;
 * the prompts and schemas belong to the verifiers that ask.
 */

/**
 * The structured reply a judge must give: a zod schema (which validates the reply) and the JSON
 * Schema sent as `response_format` (which constrains the server's decoding). Both come from one
 * definition so they cannot drift apart.
 */
export interface JudgeSchema<T> {
  /** `response_format.json_schema.name`; part of the cache key. */
  name: string;
  zod: z.ZodType<T>;
  jsonSchema: JsonObject;
}

/**
 * Builds a judge schema from a zod object. Use `z.strictObject` with every field required:
 * OpenAI's strict mode (and vLLM/SGLang's grammar compilers) need `additionalProperties: false`.
 */
export function defineJudgeSchema<T>(name: string, schema: z.ZodType<T>): JudgeSchema<T> {
  const jsonSchema = { ...(z.toJSONSchema(schema, { io: 'output' }) as unknown as JsonObject) };
  // The dialect URI is noise to the servers and would tie the cache key to zod's default target.
  delete jsonSchema['$schema'];
  return { name, zod: schema, jsonSchema };
}

/** Why a judge call did not give a usable verdict. */
export type JudgeFailureKind =
  | 'malformed'
  | 'rate_limited'
  | 'server_error'
  | 'timeout'
  | 'connection'
  | 'rejected'
  | 'deadline'
  | 'cancelled';

export interface JudgeRequest<T> {
  messages: ChatMessage[];
  schema: JudgeSchema<T>;
}

/** A judge call that gave up: the sample is ABORTED, never scored. */
export interface JudgeFailure {
  ok: false;
  kind: JudgeFailureKind;
  message: string;
  attempts: number;
}

export type JudgeResult<T> =
  | {
      ok: true;
      value: T;
      /** "judge": asked now; "cache": stored reply; "shared": an identical call in flight answered it. */
      source: 'judge' | 'cache' | 'shared';
      attempts: number;
    }
  | JudgeFailure;

/** What verifiers see of one judge endpoint. */
export interface JudgePort {
  readonly name: string;
  readonly model: string;
  judge<T>(request: JudgeRequest<T>, options?: { signal?: AbortSignal }): Promise<JudgeResult<T>>;
}

/**
 * The ABORTED outcome for a judge call that gave up: `judge_malformed`, `judge_rate_limited`,
 * `judge_server_error`, `judge_timeout`, `judge_connection`, `judge_rejected`, `judge_deadline`,
 * `judge_cancelled`. A judge failure is never a reward: the trainer drops the sample.
 */
export function judgeAborted(
  failure: { kind: JudgeFailureKind; message: string; attempts: number },
  details: JsonObject = {},
): Outcome {
  return aborted(`judge_${failure.kind}`, { ...details, judge_error: failure.message, judge_attempts: failure.attempts });
}

/** The ABORTED outcome when a verifier needs a judge endpoint that is not configured. */
export function judgeMissing(endpoint: string): Outcome {
  return aborted('service_unavailable', { service: `judge.endpoints.${endpoint}` });
}
