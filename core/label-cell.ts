import { isJsonObject, type Json, type JsonObject } from './json';

/** Where a label cell finds its verifier and, for a plain value, the label field it fills. */
export interface LabelRoute {
  /** The route's verifier; a label object's own `verifier` field wins. */
  verifier: string;
  /** `gold` turns the plain label "42" into {"gold": "42"}; `answers[]` wraps it in a list. */
  labelField: string | null;
}

export type LabelCell = { ok: true; verifier: string; label: JsonObject } | { ok: false; error: string };

function kind(value: Json | undefined): string {
  return value === undefined ? 'nothing' : value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value;
}

/**
 * A label object without its null fields, in objects at every depth (list elements stay, null or not).
 * A column of objects stored as Arrow or Parquet (Hugging Face `datasets`, which OpenRLHF and verl
 * load their data with; pandas' Parquet reader) has one struct type, the union of every row's keys,
 * and gives each row null for the keys it lacks: `{"gold": "42", "choice": null}` is the math row of
 * a column that also holds qa labels. So a null field is an absent one; no label schema gives null a
 * meaning of its own.
 */
function withoutNullFields(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutNullFields);
  if (!isJsonObject(value)) return value;
  // fromEntries defines each key as its own property: a "__proto__" key stays a field.
  return Object.fromEntries(Object.entries(value).flatMap(([key, field]) => (field === null ? [] : [[key, withoutNullFields(field)]])));
}

/**
 * The one label-cell rule, for dataset rows (verdict score's mapping) and trainer requests (the
 * OpenRLHF and slime routes) alike. A label is a dataset cell: a JSON object (or a string holding
 * one) is the label itself, without its null fields (withoutNullFields), its `verifier` key choosing
 * the verifier; any other value fills the route's label field; null is an empty label, for the
 * verifier's schema to judge. `labelFieldHow`
 * says how the caller's user names a label field (a CLI flag, a URL parameter).
 */
export function labelCell(raw: Json | undefined, route: LabelRoute, path: string, labelFieldHow: string): LabelCell {
  let value: Json = raw ?? null;
  if (typeof value === 'string' && value.trimStart().startsWith('{')) {
    try {
      value = JSON.parse(value) as Json;
    } catch {
      return { ok: false, error: `${path}: looks like a JSON object but does not parse` };
    }
  }
  if (value === null) return { ok: true, verifier: route.verifier, label: {} };
  if (isJsonObject(value)) {
    const { verifier, ...label } = withoutNullFields(value) as JsonObject;
    if (verifier !== undefined && typeof verifier !== 'string') return { ok: false, error: `${path}.verifier: expected string, received ${kind(verifier)}` };
    return { ok: true, verifier: verifier ?? route.verifier, label };
  }
  if (route.labelField === null) {
    return { ok: false, error: `${path}: a plain label (${kind(value)}) needs a label field: ${labelFieldHow}, or a JSON object label` };
  }
  const list = route.labelField.endsWith('[]');
  const field = list ? route.labelField.slice(0, -2) : route.labelField;
  return { ok: true, verifier: route.verifier, label: { [field]: list && !Array.isArray(value) ? [value] : value } };
}
