import { labelCell, type LabelCell } from '../../core/label-cell';
import { isJsonObject, type Json, type JsonObject } from '../../core/json';
import type { Sample } from '../../core/sample';
import { nestsDeeperThan } from '../../services/wire/depth';
import { setZeros } from '../../services/wire/fields';
import type * as WireJson from '../../services/wire/json';
import { NATIVE_COLUMNS, type Mapping, type Route } from './mapping';
import { rowFields } from './row-fields';

/**
 * The descriptor-driven sample reader, loaded by the first row that is not plainSample's: it loads
 * protobuf-es and the descriptors, which a pool thread otherwise does without (row-fields.ts).
 */
const wireJson = () => require('../../services/wire/json') as typeof WireJson;

/**
 * How a dataset row becomes samples, by its run's mapping (./mapping.ts). Pure: no I/O.
 *
 * A label cell maps the way the trainer routes map it (docs/groups-and-trainers.md): a JSON object
 * (or a string holding one) is the label, its `verifier` key choosing the verifier; any other value
 * fills the route's label field (`gold` → {"gold": v}, `answers[]` → {"answers": [v]}); null is an
 * empty label for the verifier's schema to judge.
 */

/** What one row yields: samples (one per rollout), or why the row has none. */
export type RowSamples =
  | { ok: true; samples: Array<{ sample: Sample; rollout: number | null }> }
  | { ok: false; error: string; id: string; verifier: string };

export interface MapContext {
  line: number;
  /** Counts a response's tokens when the row has no count (--tokenizer); null leaves them 0. */
  countTokens: ((text: string) => number) | null;
}

export function valueAt(row: JsonObject, path: string): Json | undefined {
  let value: Json | undefined = row;
  for (const key of path.split('.')) {
    if (Array.isArray(value) && /^\d+$/.test(key)) value = value[Number(key)];
    else if (isJsonObject(value)) value = value[key];
    else return undefined;
  }
  return value;
}

function kind(value: Json | undefined): string {
  return value === undefined ? 'nothing' : value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value;
}

function routeOf(mapping: Mapping, row: JsonObject): { route: Route; key: string | null } {
  const key = mapping.routeField === null ? null : valueAt(row, mapping.routeField);
  const name = typeof key === 'string' || typeof key === 'number' ? String(key) : null;
  const route = (name !== null ? mapping.routes.get(name) : undefined) ?? mapping.routes.get('*');
  return { route: route ?? { verifier: mapping.defaultVerifier ?? '', labelField: null }, key: name };
}

function labelOf(raw: Json | undefined, route: Route, path: string): LabelCell {
  return labelCell(raw, route, path, '--route VALUE=VERIFIER:FIELD');
}

function idOf(value: Json | undefined): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** One row → its samples. Errors name the input column (`responses[2]: expected string, received number`). */
export function rowToSamples(row: JsonObject, mapping: Mapping, context: MapContext): RowSamples {
  if (mapping.native) return nativeRow(row, mapping, context);
  const id = mapping.id === null ? '' : idOf(valueAt(row, mapping.id));
  const fail = (error: string, verifier = ''): RowSamples => ({ ok: false, error, id, verifier });

  const { route, key } = routeOf(mapping, row);
  const label = labelOf(mapping.label === null ? null : valueAt(row, mapping.label), route, mapping.label ?? 'label');
  if ((label.ok && label.verifier === '') || (!label.ok && route.verifier === '')) {
    const where = key !== null && mapping.routeField !== null ? ` for ${mapping.routeField} "${key}"` : '';
    return fail(`verifier: none${where} (add --route ${key ?? 'VALUE'}=VERIFIER[:LABEL_FIELD], --verifier NAME, or a "verifier" key in the label)`);
  }
  if (!label.ok) return fail(label.error, route.verifier);

  const rawResponse = valueAt(row, mapping.response);
  let responses: string[];
  let listed = false;
  if (typeof rawResponse === 'string') responses = [rawResponse];
  else if (Array.isArray(rawResponse)) {
    listed = true;
    const bad = rawResponse.findIndex((r) => typeof r !== 'string');
    if (bad !== -1) return fail(`${mapping.response}[${bad}]: expected string, received ${kind(rawResponse[bad])}`, label.verifier);
    responses = rawResponse as string[];
  } else if (rawResponse === undefined || rawResponse === null) return fail(`${mapping.response}: required (a string or a list of strings)`, label.verifier);
  else return fail(`${mapping.response}: expected a string or a list of strings, received ${kind(rawResponse)}`, label.verifier);

  const rawTokens = mapping.responseTokens === null ? undefined : valueAt(row, mapping.responseTokens);
  const tokensAt = (k: number): number | string => {
    const value = Array.isArray(rawTokens) ? rawTokens[k] : rawTokens;
    if (value === undefined || value === null) return context.countTokens ? context.countTokens(responses[k]!) : 0;
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
    return `${mapping.responseTokens}${Array.isArray(rawTokens) ? `[${k}]` : ''}: expected a non-negative integer, received ${kind(value)}`;
  };

  const metadata: JsonObject = {};
  if (mapping.metadata !== null) {
    const meta = valueAt(row, mapping.metadata);
    if (isJsonObject(meta)) Object.assign(metadata, meta);
    else if (meta !== undefined && meta !== null) return fail(`${mapping.metadata}: expected an object, received ${kind(meta)}`, label.verifier);
  }
  if (mapping.prompt !== null) {
    const prompt = valueAt(row, mapping.prompt);
    if (Array.isArray(prompt)) metadata.messages = prompt;
    else if (typeof prompt === 'string') metadata.prompt = prompt;
  }

  const groupValue = mapping.group === null ? undefined : valueAt(row, mapping.group);
  // n rollouts of one prompt are one group: the row's group column, else its id, else its line.
  const groupId = groupValue !== undefined && groupValue !== null ? idOf(groupValue) : listed ? id || `line-${context.line}` : '';

  const samples: Array<{ sample: Sample; rollout: number | null }> = [];
  for (let k = 0; k < responses.length; k++) {
    const tokens = tokensAt(k);
    if (typeof tokens === 'string') return fail(tokens, label.verifier);
    samples.push({
      sample: { id, verifier: label.verifier, response: responses[k]!, label: label.label, groupId, responseTokens: tokens, metadata },
      rollout: listed ? k : null,
    });
  }
  return { ok: true, samples };
}

/**
 * A sample-shaped row's sample when every native column it has holds its own type (a string; an
 * object within the depth limit; a whole uint32 count) and no field is written under both of its
 * names; null for any other row, which the descriptor's reader reads (and names what is wrong).
 * Both build the same sample (mapping.test.ts); this one without a closure and a result object per
 * field, on the path nearly every row of a dataset takes.
 */
function plainSample(row: JsonObject): Sample | null {
  const sample = setZeros<Sample>({ id: '', verifier: '', response: '', label: {}, groupId: '', responseTokens: 0, metadata: {} }, rowFields().sampleBeyond);
  let group = 0;
  let tokens = 0;
  for (const key in row) {
    const value = row[key]!;
    switch (key) {
      case 'id':
      case 'verifier':
      case 'response':
        if (typeof value !== 'string') return null;
        sample[key] = value;
        break;
      case 'groupId':
      case 'group_id':
        if (typeof value !== 'string' || ++group > 1) return null;
        sample.groupId = value;
        break;
      case 'responseTokens':
      case 'response_tokens':
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffffffff || ++tokens > 1) return null;
        sample.responseTokens = value;
        break;
      case 'label':
      case 'metadata':
        if (!isJsonObject(value) || nestsDeeperThan(value)) return null;
        sample[key] = value;
        break;
    }
  }
  return sample;
}

function nativeRow(row: JsonObject, mapping: Mapping, context: MapContext): RowSamples {
  let sample = plainSample(row);
  if (sample === null) {
    const fields: JsonObject = {};
    for (const key of NATIVE_COLUMNS) if (key in row) fields[key] = row[key]!;
    const parsed = wireJson().sampleFromJson(fields, '');
    if (!parsed.ok) return { ok: false, error: parsed.error, id: typeof row.id === 'string' ? row.id : '', verifier: typeof row.verifier === 'string' ? row.verifier : '' };
    sample = parsed.sample;
  }
  if (sample.verifier === '') {
    const { route } = routeOf(mapping, row);
    sample.verifier = route.verifier;
  }
  if (sample.responseTokens === 0 && !('responseTokens' in row || 'response_tokens' in row) && context.countTokens) {
    sample.responseTokens = context.countTokens(sample.response);
  }
  return { ok: true, samples: [{ sample, rollout: null }] };
}
