// The Score API's field tables as plain data, and what reads them without a descriptor: a module
// without protobuf-es, so that code given its tables (`verdict score`'s pool threads, see
// cli/dataset/row-fields.ts) need not load protobuf-es and the generated descriptors (~85 ms of CPU a
// thread at start-up). contract.ts builds the tables from the descriptors and re-exports all of this.
import type { JsonObject } from '../../core/json';

/** The field types the generic code carries; the Score API's messages use no others. */
export type FieldType = 'string' | 'bool' | 'double' | 'uint32' | 'struct';

/** A field of a message as the codecs need it. */
export interface FieldSpec {
  /** lowerCamelCase: the domain's property and the proto3 JSON name. */
  local: string;
  json: string;
  /** The proto's own (snake_case) name, which proto3 JSON readers also accept. */
  proto: string;
  number: number;
  type: FieldType;
  /** proto3 `optional` (or a message): absent when unset, not a zero. */
  explicit: boolean;
}

/** A field's value when unset: proto3's zero, a fresh `{}` for a Struct, absent for an explicit field. */
export function zeroOf(field: FieldSpec): unknown {
  if (field.explicit && field.type !== 'struct') return undefined;
  switch (field.type) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'struct':
      return {};
    default:
      return 0;
  }
}

type Fields = Record<string, unknown>;

/** Sets the zero value of each of `fields` on `target` (left out when absent is the zero). */
export function setZeros<T extends object>(target: T, fields: readonly FieldSpec[]): T {
  for (const field of fields) {
    const zero = zeroOf(field);
    if (zero !== undefined) (target as Fields)[field.local] = zero;
  }
  return target;
}

/** The proto3 JSON of each of `fields`: every field present (zeros included) except explicit ones unset. */
export function fieldsToJson(out: JsonObject, fields: readonly FieldSpec[], message: object): JsonObject {
  for (const field of fields) {
    const value = (message as Fields)[field.local];
    if (value !== undefined) out[field.json] = value as JsonObject[string];
  }
  return out;
}
