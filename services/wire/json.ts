import { z } from 'zod';
import { checkAgainst } from '../../core/label';
import type { Json, JsonObject } from '../../core/json';
import type { Sample, Status } from '../../core/sample';
import type { GroupSummary, ShapedResult } from '../../core/groups';

// The proto3 JSON mapping of `Sample`: lowerCamelCase names, the proto's own names accepted too.
const jsonValue: z.ZodType<Json> = z.lazy(() =>
  z.union([z.null(), z.boolean(), z.number(), z.string(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
);
const jsonObject = z.record(z.string(), jsonValue);
const uint32 = z.union([
  z.number().int().min(0).max(0xffffffff),
  z.string().regex(/^\d+$/, 'expected a non-negative integer').transform(Number),
]);

const sampleJson = z
  .strictObject({
    id: z.string().optional(),
    verifier: z.string().optional(),
    response: z.string().optional(),
    label: jsonObject.nullable().optional(),
    groupId: z.string().optional(),
    group_id: z.string().optional(),
    responseTokens: uint32.optional(),
    response_tokens: uint32.optional(),
    metadata: jsonObject.nullable().optional(),
  });

export type SampleParse = { ok: true; sample: Sample } | { ok: false; error: string };

/** One sample from its JSON form; the error names the field under `root` (`samples[3].label: …`). */
export function sampleFromJson(value: unknown, root: string): SampleParse {
  const checked = checkAgainst(sampleJson, value, root);
  if (!checked.ok) return { ok: false, error: checked.error };
  const s = checked.value;
  return {
    ok: true,
    sample: {
      id: s.id ?? '',
      verifier: s.verifier ?? '',
      response: s.response ?? '',
      label: s.label ?? {},
      groupId: s.groupId ?? s.group_id ?? '',
      responseTokens: s.responseTokens ?? s.response_tokens ?? 0,
      metadata: s.metadata ?? {},
    },
  };
}

export const STATUS_NAMES: Record<Status, string> = {
  OK: 'STATUS_OK',
  INVALID: 'STATUS_INVALID',
  ABORTED: 'STATUS_ABORTED',
};

/** A result in its proto3 JSON form, every field present except `reward` when not OK. */
export function resultToJson(result: ShapedResult): JsonObject {
  const out: JsonObject = { id: result.id, index: result.index, status: STATUS_NAMES[result.status] };
  if (result.reward !== undefined) out.reward = result.reward;
  out.reason = result.reason;
  out.verifier = result.verifier;
  out.verifierVersion = result.verifierVersion;
  out.details = result.details;
  if (result.advantage !== undefined) out.advantage = result.advantage;
  return out;
}

export function groupToJson(group: GroupSummary): JsonObject {
  const out: JsonObject = { ...group };
  return out;
}
