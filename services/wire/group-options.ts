import { z } from 'zod';
import { resolveGroupOptions, type GroupOptionsInput, type GroupOptionsParse } from '../../core/groups';
import { checkAgainst } from '../../core/label';

// The proto3 JSON mapping of GroupOptions: lowerCamelCase names, the proto's own names accepted too.
const uint32 = z.number().int().min(0).max(0xffffffff);
const groupOptionsJson = z.strictObject({
  lengthPenalty: z.boolean().optional(),
  length_penalty: z.boolean().optional(),
  lengthPenaltyMax: z.number().optional(),
  length_penalty_max: z.number().optional(),
  maxLength: uint32.optional(),
  max_length: uint32.optional(),
  keepMin: z.number().nullable().optional(),
  keep_min: z.number().nullable().optional(),
  keepMax: z.number().nullable().optional(),
  keep_max: z.number().nullable().optional(),
  minValid: uint32.optional(),
  min_valid: uint32.optional(),
  advantage: z.string().optional(),
});

function defined<T>(...values: Array<T | null | undefined>): T | undefined {
  for (const value of values) if (value !== undefined && value !== null) return value;
  return undefined;
}

/** `groupOptions` of an HTTP request, a CLI flag or a trainer route; errors name the field. */
export function groupOptionsFromJson(value: unknown, root = 'group_options'): GroupOptionsParse {
  const checked = checkAgainst(groupOptionsJson, value, root);
  if (!checked.ok) return checked;
  const o = checked.value;
  const input: GroupOptionsInput = {
    lengthPenalty: defined(o.lengthPenalty, o.length_penalty),
    lengthPenaltyMax: defined(o.lengthPenaltyMax, o.length_penalty_max),
    maxLength: defined(o.maxLength, o.max_length),
    keepMin: defined(o.keepMin, o.keep_min),
    keepMax: defined(o.keepMax, o.keep_max),
    minValid: defined(o.minValid, o.min_valid),
    advantage: defined(o.advantage),
  };
  return resolveGroupOptions(input, root);
}

/** GroupOptions as proto-loader decodes it: unset `optional` fields are null or absent. */
export interface ProtoGroupOptions {
  lengthPenalty?: boolean;
  lengthPenaltyMax?: number;
  maxLength?: number;
  keepMin?: number | null;
  keepMax?: number | null;
  minValid?: number;
  advantage?: string;
}

export function groupOptionsFromProto(message: ProtoGroupOptions): GroupOptionsParse {
  return resolveGroupOptions({ ...message, keepMin: defined(message.keepMin), keepMax: defined(message.keepMax) });
}
