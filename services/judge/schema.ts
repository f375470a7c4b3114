import { z } from 'zod';
import type { JsonObject } from '../../core/json';

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
