import { WireType } from '@bufbuild/protobuf/wire';
import { Reader } from './reader';
import { ListValueSchema, StructSchema, ValueSchema } from '@bufbuild/protobuf/wkt';
import type { Json, JsonObject } from '../../core/json';
import { MAX_JSON_DEPTH } from './depth';
import type { Writer } from './writer';

/**
 * google.protobuf.Struct straight from and to its wire bytes, as plain JSON. Labels, metadata and
 * details are JSON everywhere in Verdict; building a Struct/Value message per node only to convert it
 * again was most of the cost of a batch on the wire. The depth bound makes a too-deep value a typed
 * error for its own sample instead of a stack overflow for the whole request.
 */

const STRUCT_FIELDS = StructSchema.field.fields!.number;
const LIST_VALUES = ListValueSchema.field.values!.number;
const MAP_KEY = 1;
const MAP_VALUE = 2;
const V = ValueSchema.field;
const NULL_VALUE = V.nullValue!.number;
const NUMBER_VALUE = V.numberValue!.number;
const STRING_VALUE = V.stringValue!.number;
const BOOL_VALUE = V.boolValue!.number;
const STRUCT_VALUE = V.structValue!.number;
const LIST_VALUE = V.listValue!.number;

/** A Struct nested past the limit: the caller names the field it came from. */
export class TooDeep extends Error {}

// One walk reads a Struct and, with `build` false, only checks it: it meets the same malformed
// bytes and the same depth as the read would, so a request a server checked this way decodes later
// (on a pool thread) without error.

function readValue(reader: Reader, end: number, depth: number, limit: number, build: boolean): Json {
  let value: Json = null;
  while (reader.pos < end) {
    const [field, wireType] = reader.tag();
    switch (field) {
      case NULL_VALUE:
        reader.skip(wireType);
        value = null;
        break;
      case NUMBER_VALUE:
        value = reader.double();
        break;
      case STRING_VALUE:
        if (build) value = reader.string();
        else reader.skip(WireType.LengthDelimited);
        break;
      case BOOL_VALUE:
        value = reader.bool();
        break;
      case STRUCT_VALUE:
        value = readStructAt(reader, reader.uint32() + reader.pos, depth + 1, limit, build);
        break;
      case LIST_VALUE:
        value = readList(reader, reader.uint32() + reader.pos, depth + 1, limit, build);
        break;
      default:
        reader.skip(wireType);
    }
  }
  return value;
}

function readList(reader: Reader, end: number, depth: number, limit: number, build: boolean): Json[] {
  if (depth > limit) throw new TooDeep();
  const out: Json[] = [];
  while (reader.pos < end) {
    const [field, wireType] = reader.tag();
    if (field === LIST_VALUES && wireType === WireType.LengthDelimited) {
      const value = readValue(reader, reader.uint32() + reader.pos, depth, limit, build);
      if (build) out.push(value);
    } else reader.skip(wireType);
  }
  return out;
}

function readStructAt(reader: Reader, end: number, depth: number, limit: number, build: boolean): JsonObject {
  if (depth > limit) throw new TooDeep();
  const out: JsonObject = {};
  while (reader.pos < end) {
    const [field, wireType] = reader.tag();
    if (field !== STRUCT_FIELDS || wireType !== WireType.LengthDelimited) {
      reader.skip(wireType);
      continue;
    }
    const entryEnd = reader.uint32() + reader.pos;
    let key = '';
    let value: Json = null;
    while (reader.pos < entryEnd) {
      const [entryField, entryType] = reader.tag();
      if (entryField === MAP_KEY) {
        if (build) key = reader.name();
        else reader.skip(WireType.LengthDelimited);
      } else if (entryField === MAP_VALUE) value = readValue(reader, reader.uint32() + reader.pos, depth, limit, build);
      else reader.skip(entryType);
    }
    if (build) out[key] = value;
  }
  return out;
}

function readStructFieldAs(reader: Reader, limit: number, build: boolean): JsonObject {
  const end = reader.uint32() + reader.pos;
  if (end > reader.len) throw new RangeError('premature end of message');
  try {
    return readStructAt(reader, end, 1, limit, build);
  } finally {
    reader.pos = end;
  }
}

/**
 * Passes over the Struct field the reader is at as `readStructField` would read it, throwing where
 * it would throw (TooDeep, RangeError), without building the object.
 */
export function skimStructField(reader: Reader, limit = MAX_JSON_DEPTH): void {
  readStructFieldAs(reader, limit, false);
}

/**
 * The Struct field the reader is at (its length next) as a JSON object; throws TooDeep past `limit`
 * levels (the struct itself is level 1), leaving the reader past the field either way.
 */
export function readStructField(reader: Reader, limit = MAX_JSON_DEPTH): JsonObject {
  return readStructFieldAs(reader, limit, true);
}

function writeValue(writer: Writer, value: Json): void {
  if (value === null) writer.tag(NULL_VALUE, WireType.Varint).uint32(0);
  else if (typeof value === 'number') writer.tag(NUMBER_VALUE, WireType.Bit64).double(value);
  else if (typeof value === 'string') writer.tag(STRING_VALUE, WireType.LengthDelimited).string(value);
  else if (typeof value === 'boolean') writer.tag(BOOL_VALUE, WireType.Varint).bool(value);
  else if (Array.isArray(value)) {
    writer.tag(LIST_VALUE, WireType.LengthDelimited).fork();
    for (const item of value) {
      writer.tag(LIST_VALUES, WireType.LengthDelimited).fork();
      writeValue(writer, item);
      writer.join();
    }
    writer.join();
  } else {
    writer.tag(STRUCT_VALUE, WireType.LengthDelimited).fork();
    writeStructFields(writer, value);
    writer.join();
  }
}

function writeStructFields(writer: Writer, object: JsonObject): void {
  for (const key in object) {
    const value = object[key];
    if (value === undefined) continue;
    writer.tag(STRUCT_FIELDS, WireType.LengthDelimited).fork();
    writer.tag(MAP_KEY, WireType.LengthDelimited).string(key);
    writer.tag(MAP_VALUE, WireType.LengthDelimited).fork();
    writeValue(writer, value);
    writer.join().join();
  }
}

/** Writes `object` as the Struct-typed field `field` (always present, possibly empty). */
export function writeStructField(writer: Writer, field: number, object: JsonObject): void {
  writer.tag(field, WireType.LengthDelimited).fork();
  writeStructFields(writer, object);
  writer.join();
}
