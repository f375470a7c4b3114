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

/** True when `value` nests objects/arrays deeper than `limit`; iterative, so any depth is safe to ask. */
export function nestsDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > limit) return true;
    const children = Array.isArray(node) ? node : Object.values(node as Record<string, Json>);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
