import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { fieldPath } from '../../core/label';
import { isJsonObject, type JsonObject } from '../../core/json';
import type { Sample } from '../../core/sample';
import { STATUS_NAMES } from '../../core/status';
import { encodedBytes } from '../engine/encoded';
import type { GroupSummary, ShapedResult } from '../../core/groups';
import { emptySample, fieldsText, fieldsToJson, RESULT_BEYOND } from './contract';
import { nestsDeeperThan, tooDeepReason } from './depth';
import { SampleSchema } from './gen/verdict/v1/score_pb';

/**
 * The proto3 JSON mapping of the Score API's messages, read by the fields of the generated
 * descriptors: lowerCamelCase names and the proto's own names both accepted, `null` meaning unset,
 * uint32 also as a decimal string. Errors name the field (`samples[3].response: expected string,
 * received number`); unlike a generic parser this never builds a Struct message for labels.
 */

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

type FieldRead = { ok: true; value: unknown } | { ok: false; error: string };

// `path` is built only for an error: a batch reads thousands of fields that are fine.
function readField(field: DescField, value: unknown, path: () => string): FieldRead {
  const fail = (expected: string): FieldRead => ({ ok: false, error: `${path()}: expected ${expected}, received ${kind(value)}` });
  if (field.fieldKind === 'message') {
    // google.protobuf.Struct: a JSON object, kept as it is.
    return isJsonObject(value) ? { ok: true, value } : fail('object');
  }
  if (field.fieldKind !== 'scalar') return { ok: false, error: `${path()}: unsupported field` };
  switch (field.scalar) {
    case ScalarType.STRING:
      return typeof value === 'string' ? { ok: true, value } : fail('string');
    case ScalarType.BOOL:
      return typeof value === 'boolean' ? { ok: true, value } : fail('boolean');
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return typeof value === 'number' ? { ok: true, value } : fail('number');
    case ScalarType.UINT32: {
      const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
      if (typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 0xffffffff) return { ok: true, value: n };
      return { ok: false, error: `${path()}: expected a non-negative integer (uint32), received ${JSON.stringify(value) ?? kind(value)}` };
    }
    default:
      return { ok: false, error: `${path()}: unsupported field` };
  }
}

const fieldsByName = new WeakMap<DescMessage, Map<string, DescField>>();

function fieldsOf(desc: DescMessage): Map<string, DescField> {
  let map = fieldsByName.get(desc);
  if (!map) {
    map = new Map();
    for (const field of desc.fields) {
      map.set(field.jsonName, field);
      map.set(field.name, field);
    }
    fieldsByName.set(desc, map);
  }
  return map;
}

export type MessageRead = { ok: true; fields: Record<string, unknown> } | { ok: false; error: string };

/** A message's JSON object → its set fields by their local (lowerCamelCase) names. `root` is called only for an error. */
export function readMessageJson(desc: DescMessage, value: unknown, root: string | (() => string)): MessageRead {
  const rootPath = typeof root === 'string' ? () => root : root;
  if (!isJsonObject(value)) return { ok: false, error: `${rootPath() || 'value'}: expected object, received ${kind(value)}` };
  const byName = fieldsOf(desc);
  const fields: Record<string, unknown> = {};
  for (const key in value) {
    const field = byName.get(key);
    const path = () => fieldPath(rootPath(), [key]);
    if (!field) return { ok: false, error: `${path()}: unknown field` };
    const raw = value[key];
    if (raw === null || raw === undefined) continue;
    const read = readField(field, raw, path);
    if (!read.ok) return read;
    fields[field.localName] = read.value;
  }
  return { ok: true, fields };
}

/** The first of label/metadata nested deeper than the limit, named as the field, or null. */
export function tooDeepField(value: unknown): 'label' | 'metadata' | null {
  if (!isJsonObject(value)) return null;
  for (const field of ['label', 'metadata'] as const) {
    if (nestsDeeperThan(value[field])) return field;
  }
  return null;
}

export type SampleParse = { ok: true; sample: Sample } | { ok: false; error: string };

/**
 * One sample from its JSON form; the error names the field under `root` (`samples[3].label: …`).
 * `depthChecked`: the caller has found label and metadata within the depth limit already.
 */
export function sampleFromJson(value: unknown, root: string | (() => string), depthChecked = false): SampleParse {
  const rootPath = typeof root === 'string' ? () => root : root;
  const deep = depthChecked ? null : tooDeepField(value);
  if (deep) return { ok: false, error: tooDeepReason(fieldPath(rootPath(), [deep])) };
  const read = readMessageJson(SampleSchema, value, rootPath);
  if (!read.ok) return read;
  // The fields the JSON sets over a sample with every field unset: the descriptor's fields, all of them.
  return { ok: true, sample: Object.assign(emptySample(), read.fields) };
}


/** A result in its proto3 JSON form, every field present except `reward` when not OK. */
export function resultToJson(result: ShapedResult): JsonObject {
  const out: JsonObject = { id: result.id, index: result.index, status: STATUS_NAMES[result.status] };
  if (result.reward !== undefined) out.reward = result.reward;
  out.reason = result.reason;
  out.verifier = result.verifier;
  out.verifierVersion = result.verifierVersion;
  out.details = result.details;
  if (result.advantage !== undefined) out.advantage = result.advantage;
  return fieldsToJson(out, RESULT_BEYOND, result);
}

export function groupToJson(group: GroupSummary): JsonObject {
  const out: JsonObject = { ...group };
  return out;
}

/**
 * A number as JSON text that every reader decodes as a float: `1` → `1.0`. Python's json reads `1` as
 * an int, and a trainer that builds `torch.tensor([reward])` from it gets int64, which its
 * group_norm / reinforce_baseline advantage estimators refuse ("std and var only support floating point").
 */
export function floatLiteral(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`reward ${value} is not a finite number`);
  // Integers below 1e21 print without exponent or point (`1`, `-3`); the rest print as floats already.
  return Number.isInteger(value) && Math.abs(value) < 1e21 ? `${value}.0` : JSON.stringify(value);
}

/** A reward field's text: a float literal, or `null` for a value JSON cannot hold (as JSON.stringify writes it). */
function floatText(value: number): string {
  return Number.isFinite(value) ? floatLiteral(value) : 'null';
}

/** The fields of group summaries that are rewards, written as floats. */
const FLOAT_FIELDS = new Set(['meanReward', 'meanRawReward']);

function objectText(object: JsonObject): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(object)) {
    if (value === undefined) continue;
    const text = FLOAT_FIELDS.has(key) && typeof value === 'number' ? floatText(value) : JSON.stringify(value);
    parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * One result's JSON object as text (resultToJson's fields in its order), rewards as floats. Written
 * field by field: pool threads encode every result of an HTTP reply this way, and building the
 * object first and stringifying each entry cost twice as much (measured).
 */
export function resultText(result: ShapedResult): string {
  const reward = result.reward !== undefined ? `,"reward":${floatText(result.reward)}` : '';
  const advantage = result.advantage !== undefined ? `,"advantage":${floatText(result.advantage)}` : '';
  return (
    `{"id":${JSON.stringify(result.id)},"index":${result.index},"status":"${STATUS_NAMES[result.status]}"${reward}` +
    `,"reason":${JSON.stringify(result.reason)},"verifier":${JSON.stringify(result.verifier)}` +
    `,"verifierVersion":${JSON.stringify(result.verifierVersion)},"details":${JSON.stringify(result.details)}${advantage}` +
    `${fieldsText(RESULT_BEYOND, result, floatText)}}`
  );
}

const REPLY_HEAD = Buffer.from('{"results":[');
const COMMA = Buffer.from(',');

/** The Score reply (`{results, groups}`) as JSON (UTF-8), rewards as floats; results a pool thread encoded are copied as they are. */
export function scoreReplyJson(results: readonly ShapedResult[], groups: readonly GroupSummary[]): Buffer {
  const parts: Uint8Array[] = [REPLY_HEAD];
  results.forEach((result, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(encodedBytes(result, 'json') ?? Buffer.from(resultText(result)));
  });
  parts.push(Buffer.from(`],"groups":[${groups.map((g) => objectText(groupToJson(g))).join(',')}]}`));
  return Buffer.concat(parts);
}
