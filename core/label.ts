import { z } from 'zod';

export type LabelCheck<T> = { ok: true; value: T } | { ok: false; error: string };

/** `['answers', 0, 'text']` under `label` → `label.answers[0].text` (under '' → `answers[0].text`). */
export function fieldPath(root: string, path: ReadonlyArray<PropertyKey>): string {
  let out = root;
  for (const key of path) {
    out += typeof key === 'number' ? `[${key}]` : out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** The value at `path` inside `value`, undefined where the path leads nowhere. */
function valueAt(value: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let at = value;
  for (const key of path) at = at !== null && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  return at;
}

function describeIssue(root: string, issue: z.core.$ZodIssue, value: unknown): string {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `${fieldPath(root, [...issue.path, key])}: unknown field`).join('; ');
  }
  // A discriminated union (code's `mode`, a rubric's `kind`): name the choices, not zod's "Invalid discriminator value".
  const options = (issue as { options?: unknown }).options;
  if (issue.code === 'invalid_union' && Array.isArray(options) && options.length > 0) {
    const given = valueAt(value, issue.path);
    const choices = options.map((o) => JSON.stringify(o)).join(' or ');
    return `${fieldPath(root, issue.path)}: ${given === undefined ? `required: ${choices}` : `expected ${choices}, received ${JSON.stringify(given)}`}`;
  }
  const message = issue.message.replace(/^Invalid input: /, '');
  return `${fieldPath(root, issue.path)}: ${message}`;
}

/**
 * Validates `value` against a schema. The error names the first failing field by its path from
 * `root` (`label.answers[0]: expected string, received number`), so a data bug is found at once.
 */
export function checkAgainst<S extends z.ZodType>(schema: S, value: unknown, root = 'label'): LabelCheck<z.output<S>> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const first = parsed.error.issues[0];
  return { ok: false, error: first ? describeIssue(root, first, value) : `${root}: invalid` };
}

/** The JSON Schema text that ListVerifiers publishes for a label schema. */
export function jsonSchemaText(schema: z.ZodType): string {
  return JSON.stringify(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }));
}

/**
 * A label cell that means text but may hold a number, as datasets carry it (gsm8k's answer `42`,
 * a parquet int column): the number is read as the text a dataset author would have written
 * (`42`, `-0.5`). Only where that text is unambiguous: a number JSON wrote with an exponent
 * (1e21, 1e-7) or an integer past 2^53 (its digits already lost in parsing) is refused, naming the
 * field, with a string asked for instead.
 */
export function numberText(value: number): string | null {
  const text = String(value);
  if (!Number.isFinite(value) || /e/i.test(text) || (Number.isInteger(value) && !Number.isSafeInteger(value))) return null;
  return text;
}

/** A string, or a number read as text by numberText. */
export function textOrNumber(error: (issue: { input: unknown }) => string) {
  const ambiguous = (input: unknown) => `expected a string: the number ${String(input)} has no unambiguous text`;
  return z.union([z.string(), z.number().refine((n) => numberText(n) !== null).transform((n) => numberText(n)!)], {
    error: (issue) => (typeof issue.input === 'number' ? ambiguous(issue.input) : error(issue)),
  });
}
