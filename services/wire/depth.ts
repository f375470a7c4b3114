import type { Json } from '../../core/json';

/**
 * How deeply labels, metadata and details may nest (the object itself is level 1). Real labels and
 * conversations stay under 10; the limit keeps every recursive walk over them (validation, encoding,
 * structured clone to a pool thread) far from the stack's end, and it is checked where a request
 * enters, so a deeper value makes only its own sample INVALID.
 */
export const MAX_JSON_DEPTH = 32;

export function tooDeepReason(field: string, limit = MAX_JSON_DEPTH): string {
  return `${field}: nested deeper than ${limit} levels`;
}

/**
 * True when `value` nests objects/arrays deeper than `limit`. The walk stops at `limit + 1` levels,
 * so any depth is safe to ask; it allocates nothing (every label and metadata of a batch is asked).
 */
export function nestsDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  return deeper(value, 1, limit);
}

function deeper(node: unknown, depth: number, limit: number): boolean {
  if (typeof node !== 'object' || node === null) return false;
  if (depth > limit) return true;
  if (Array.isArray(node)) {
    for (const child of node) if (deeper(child, depth + 1, limit)) return true;
    return false;
  }
  const object = node as Record<string, Json>;
  for (const key in object) if (deeper(object[key], depth + 1, limit)) return true;
  return false;
}
