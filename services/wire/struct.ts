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

function readValue(reader: Reader, end: number, depth: number, limit: number): Json {
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
        value = reader.string();
        break;
      case BOOL_VALUE:
        value = reader.bool();
        break;
      case STRUCT_VALUE:
        value = readStructAt(reader, reader.uint32() + reader.pos, depth + 1, limit);
        break;
      case LIST_VALUE:
        value = readList(reader, reader.uint32() + reader.pos, depth + 1, limit);
        break;
      default:
        reader.skip(wireType);
    }
  }
  return value;
}

function readList(reader: Reader, end: number, depth: number, limit: number): Json[] {
  if (depth > limit) throw new TooDeep();
  const out: Json[] = [];
  while (reader.pos < end) {
    const [field, wireType] = reader.tag();
    if (field === LIST_VALUES && wireType === WireType.LengthDelimited) {
      out.push(readValue(reader, reader.uint32() + reader.pos, depth, limit));
    } else reader.skip(wireType);
  }
  return out;
}

function readStructAt(reader: Reader, end: number, depth: number, limit: number): JsonObject {
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
      if (entryField === MAP_KEY) key = reader.string();
      else if (entryField === MAP_VALUE) value = readValue(reader, reader.uint32() + reader.pos, depth, limit);
      else reader.skip(entryType);
    }
    out[key] = value;
  }
  return out;
}

// The same walk as the readers above, building nothing: it meets the same malformed bytes and the
// same depth where they would, so a request checked by it decodes later without error.
function skimValue(reader: Reader, end: number, depth: number, limit: number): void {
  while (reader.pos < end) {
    const [field, wireType] = reader.tag();
    switch (field) {
      case NUMBER_VALUE:
        reader.double();
        break;
      case STRING_VALUE:
        reader.bytes();
        break;
      case BOOL_VALUE:
        reader.uint32();
        break;
      case STRUCT_VALUE:
        skimStructAt(reader, reader.uint32() + reader.pos, depth + 1, limit);
        break;
      case LIST_VALUE:
        skimList(reader, reader.uint32() + reader.pos, depth + 1, limit);
        break;
      default:
        reader.skip(wireType);
    }
  }
}

function skimList(reader: Reader, end: number, depth: number, limit: number): void {
  if (depth > limit) throw new TooDeep();
  while (reader.pos < end) {
    const [field, wireType] = reader.tag();
    if (field === LIST_VALUES && wireType === WireType.LengthDelimited) skimValue(reader, reader.uint32() + reader.pos, depth, limit);
    else reader.skip(wireType);
  }
}

function skimStructAt(reader: Reader, end: number, depth: number, limit: number): void {
  if (depth > limit) throw new TooDeep();
  while (reader.pos < end) {
    const [field, wireType] = reader.tag();
    if (field !== STRUCT_FIELDS || wireType !== WireType.LengthDelimited) {
      reader.skip(wireType);
      continue;
    }
    const entryEnd = reader.uint32() + reader.pos;
    while (reader.pos < entryEnd) {
      const [entryField, entryType] = reader.tag();
      if (entryField === MAP_KEY) reader.bytes();
      else if (entryField === MAP_VALUE) skimValue(reader, reader.uint32() + reader.pos, depth, limit);
      else reader.skip(entryType);
    }
  }
}

/**
 * Passes over the Struct field the reader is at as `readStructField` would read it, throwing where
 * it would throw (TooDeep, RangeError), without building the object.
 */
export function skimStructField(reader: Reader, limit = MAX_JSON_DEPTH): void {
  const end = reader.uint32() + reader.pos;
  if (end > reader.len) throw new RangeError('premature end of message');
  try {
    skimStructAt(reader, end, 1, limit);
  } finally {
    reader.pos = end;
  }
}

/**
 * The Struct field the reader is at (its length next) as a JSON object; throws TooDeep past `limit`
 * levels (the struct itself is level 1), leaving the reader past the field either way.
 */
export function readStructField(reader: Reader, limit = MAX_JSON_DEPTH): JsonObject {
  const end = reader.uint32() + reader.pos;
  if (end > reader.len) throw new RangeError('premature end of message');
  try {
    return readStructAt(reader, end, 1, limit);
  } finally {
    reader.pos = end;
  }
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
