import type { Json, JsonObject } from '../../core/json';
import { MAX_JSON_DEPTH } from '../wire/depth';

/**
 * Longest string a result's `details` echoes. Verifiers echo what they extracted (`extracted`,
 * `normalized`, stdout): a 4 MiB boxed answer echoed twice made a reply twice its request. The
 * evidence fits in the first characters; the rest is dropped and the string says so.
 */
export const MAX_DETAIL_CHARS = 2048;

export function truncated(text: string, limit = MAX_DETAIL_CHARS): string {
  return `${text.slice(0, limit)}…[truncated: ${text.length} characters in all]`;
}

const TOO_DEEP = `…[nested deeper than ${MAX_JSON_DEPTH} levels]`;

function bound(value: Json, depth: number, limit: number): Json {
  if (typeof value === 'string') return value.length > limit ? truncated(value, limit) : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_JSON_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) {
    let out: Json[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = value[i]!;
      const next = bound(item, depth + 1, limit);
      if (next !== item) (out ??= value.slice())[i] = next;
    }
    return out ?? value;
  }
  return boundObject(value, depth, limit);
}

function boundObject(object: JsonObject, depth: number, limit: number): JsonObject {
  let out: JsonObject | null = null;
  for (const key in object) {
    const item = object[key]!;
    const next = bound(item, depth + 1, limit);
    if (next !== item) (out ??= { ...object })[key] = next;
  }
  return out ?? object;
}

/** `details` with long strings truncated and over-deep values replaced; the same object when nothing changes. */
export function boundDetails(details: JsonObject, limit = MAX_DETAIL_CHARS): JsonObject {
  return boundObject(details, 1, limit);
}

/**
 * An upper bound on the characters `value` takes when encoded (strings by their length, every other
 * node by a fixed allowance); transports turn it into bytes with their own worst case per character.
 */
export function charsBound(value: Json): number {
  if (typeof value === 'string') return value.length + 8;
  if (value === null || typeof value !== 'object') return 24;
  let sum = 8;
  if (Array.isArray(value)) for (const item of value) sum += charsBound(item);
  else for (const key in value) sum += key.length + 8 + charsBound(value[key]!);
  return sum;
}
