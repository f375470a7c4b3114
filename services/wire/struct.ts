import type { Json, JsonObject } from '../../core/json';

/** google.protobuf.Value as @grpc/proto-loader hands it over (oneofs: true). */
export interface ProtoValue {
  nullValue?: string | number;
  numberValue?: number;
  stringValue?: string;
  boolValue?: boolean;
  structValue?: ProtoStruct;
  listValue?: { values?: ProtoValue[] };
  kind?: string;
}

export interface ProtoStruct {
  fields?: Record<string, ProtoValue>;
}

export function valueToJson(value: ProtoValue): Json {
  switch (value.kind) {
    case 'numberValue':
      return value.numberValue ?? 0;
    case 'stringValue':
      return value.stringValue ?? '';
    case 'boolValue':
      return value.boolValue ?? false;
    case 'structValue':
      return structToJson(value.structValue);
    case 'listValue':
      return (value.listValue?.values ?? []).map(valueToJson);
    default:
      return null;
  }
}

export function structToJson(struct: ProtoStruct | null | undefined): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(struct?.fields ?? {})) out[key] = valueToJson(value);
  return out;
}

export function jsonToValue(value: Json): ProtoValue {
  if (value === null) return { nullValue: 'NULL_VALUE' };
  if (typeof value === 'number') return { numberValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(jsonToValue) } };
  return { structValue: jsonToStruct(value) };
}

export function jsonToStruct(object: JsonObject): ProtoStruct {
  const fields: Record<string, ProtoValue> = {};
  for (const [key, value] of Object.entries(object)) fields[key] = jsonToValue(value);
  return { fields };
}
