import { ScalarType, type DescField, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { WireType } from '@bufbuild/protobuf/wire';
import type { GroupSummary, ShapedResult } from '../../core/groups';
import type { JsonObject } from '../../core/json';
import type { Sample } from '../../core/sample';
import type { Reader } from './reader';
import { readStructField, writeStructField } from './struct';
import { GroupSummarySchema, SampleSchema, ScoreResultSchema } from './gen/verdict/v1/score_pb';
import type { Writer } from './writer';
import { setZeros, type FieldSpec, type FieldType } from './fields';

// The field tables' types and the helpers that only read them live in ./fields.ts, without protobuf-es:
// `verdict score`'s pool threads are given their tables and need no descriptor (cli/dataset/row-fields.ts).
export { fieldsToJson, setZeros, zeroOf, type FieldSpec, type FieldType } from './fields';

/**
 * The Score API's field tables, from the descriptors protoc generated (gen/). The codecs name the
 * fields they have a fast path for (binary.ts, json.ts, the CLI's rows); every other field of the
 * descriptor — one the proto gained since — is carried by the generic code here, by its type, so a
 * new field reaches the wire, the JSON, the result files and the size bound without another edit.
 * test/spine/contract.test.ts runs every descriptor field through every codec against protobuf-es,
 * and a copy of the descriptor with a field added through the generic path.
 */

/** A generated message's fields by local (lowerCamelCase) name. */
export type FieldOf<Desc extends DescMessage> = Exclude<keyof MessageShape<Desc>, '$typeName' | '$unknown'>;
export type SampleField = FieldOf<typeof SampleSchema>;
export type ResultField = FieldOf<typeof ScoreResultSchema>;

/** Same key sets, or the keys that differ (a compile error that names them). */
type SameKeys<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : { onlyInDomain: Exclude<A, B>; onlyInProto: Exclude<B, A> };
type Assert<T extends true> = T;
/**
 * The domain's types (core/) have the proto's fields, no more and no fewer: core cannot import the
 * generated code (it is pure), so a field added to score.proto and regenerated fails to compile here
 * until core/sample.ts (or core/groups.ts) has it too. A result's `group` is the wire's own (ScoreStream).
 */
export type DomainMatchesProto = [
  Assert<SameKeys<keyof Sample, SampleField>>,
  Assert<SameKeys<keyof ShapedResult | 'group', ResultField>>,
  Assert<SameKeys<keyof GroupSummary, FieldOf<typeof GroupSummarySchema>>>,
];

function typeOf(field: DescField): FieldType {
  if (field.fieldKind === 'message' && field.message.typeName === 'google.protobuf.Struct') return 'struct';
  if (field.fieldKind === 'scalar') {
    switch (field.scalar) {
      case ScalarType.STRING:
        return 'string';
      case ScalarType.BOOL:
        return 'bool';
      case ScalarType.DOUBLE:
        return 'double';
      case ScalarType.UINT32:
        return 'uint32';
    }
  }
  // At start-up, not a silent drop: a field the codecs cannot carry must be taught to them first.
  throw new Error(`${field.parent.typeName}.${field.name}: a field of this type is not carried by services/wire (add it to contract.ts)`);
}

/** The fields of `desc` the code that names `named` leaves to the generic code, in field order. */
export function fieldsBeyond(desc: DescMessage, named: readonly string[]): FieldSpec[] {
  return desc.fields
    .filter((field) => !named.includes(field.localName))
    .map((field) => ({
      local: field.localName,
      json: field.jsonName,
      proto: field.name,
      number: field.number,
      type: typeOf(field),
      // Implicit presence is 2 (FeatureSet.FieldPresence.IMPLICIT); optional scalars and messages are explicit.
      explicit: field.fieldKind === 'message' || field.presence !== 2,
    }));
}

/** The Sample fields binary.ts, json.ts and json-scan.ts read and write by name (the rest: SAMPLE_BEYOND). */
export const SAMPLE_NAMED = ['id', 'verifier', 'response', 'label', 'groupId', 'responseTokens', 'metadata'] as const satisfies readonly SampleField[];
export type NamedSampleField = (typeof SAMPLE_NAMED)[number];
/** The ScoreResult fields binary.ts, json.ts and the CLI's rows write by name (the rest: RESULT_BEYOND). */
export const RESULT_NAMED: readonly ResultField[] = ['id', 'status', 'reward', 'reason', 'verifier', 'verifierVersion', 'details', 'index', 'group', 'advantage'];

/** The GroupSummary fields binary.ts writes by name (its reads, and the JSON, go by the descriptor already). */
export const GROUP_NAMED: readonly FieldOf<typeof GroupSummarySchema>[] = [
  'groupId', 'size', 'ok', 'aborted', 'invalid', 'meanReward', 'keep', 'keepReason', 'meanRawReward', 'shortestCorrect',
];

export const SAMPLE_BEYOND = fieldsBeyond(SampleSchema, SAMPLE_NAMED);
export const RESULT_BEYOND = fieldsBeyond(ScoreResultSchema, RESULT_NAMED);
export const GROUP_BEYOND = fieldsBeyond(GroupSummarySchema, GROUP_NAMED);

/** A sample with every field unset: the start of every decoder's sample. */
export function emptySample(): Sample {
  return setZeros({ id: '', verifier: '', response: '', label: {}, groupId: '', responseTokens: 0, metadata: {} } as Sample, SAMPLE_BEYOND);
}

/** ScoreResult's text and Struct fields by local name, for the bound on a result's encoded size (services/engine/scorer.ts). */
export const RESULT_TEXT_FIELDS = ScoreResultSchema.fields.filter((f) => f.fieldKind === 'scalar' && f.scalar === ScalarType.STRING).map((f) => f.localName);
export const RESULT_STRUCT_FIELDS = ScoreResultSchema.fields.filter((f) => f.fieldKind === 'message' && f.message.typeName === 'google.protobuf.Struct').map((f) => f.localName);

type Fields = Record<string, unknown>;

function unset(field: FieldSpec, value: unknown): boolean {
  if (value === undefined) return true;
  // Implicit presence: proto3 leaves zeros off the wire. A Struct is always written (writeStructField).
  return !field.explicit && field.type !== 'struct' && (value === '' || value === 0 || value === false);
}

/** The wire type of a field of `type`. */
const WIRE_TYPES: Record<FieldType, WireType> = {
  string: WireType.LengthDelimited,
  bool: WireType.Varint,
  double: WireType.Bit64,
  uint32: WireType.Varint,
  struct: WireType.LengthDelimited,
};

/** Writes each of `fields` that `message` sets, as protobuf-es would. */
export function writeFields(writer: Writer, fields: readonly FieldSpec[], message: object): void {
  for (const field of fields) {
    const value = (message as Fields)[field.local];
    if (unset(field, value)) continue;
    if (field.type === 'struct') {
      writeStructField(writer, field.number, value as JsonObject);
      continue;
    }
    writer.tag(field.number, WIRE_TYPES[field.type]);
    if (field.type === 'string') writer.string(value as string);
    else if (field.type === 'bool') writer.bool(value as boolean);
    else if (field.type === 'double') writer.double(value as number);
    else writer.uint32(value as number);
  }
}

/** Field numbers → specs, for a decoder's `default:` branch. */
export function byNumber(fields: readonly FieldSpec[]): ReadonlyMap<number, FieldSpec> {
  return new Map(fields.map((field) => [field.number, field]));
}

/** Reads `field`'s value into `message` (the tag read already); false when the wire type is not the field's. */
export function readField(reader: Reader, field: FieldSpec, wireType: WireType, message: object): boolean {
  if (wireType !== WIRE_TYPES[field.type]) return false;
  let value: unknown;
  if (field.type === 'string') value = reader.string();
  else if (field.type === 'bool') value = reader.bool();
  else if (field.type === 'double') value = reader.double();
  else if (field.type === 'uint32') value = reader.uint32();
  else value = readStructField(reader);
  (message as Fields)[field.local] = value;
  return true;
}

/** The same fields as JSON text, each `,"name":value`; `number` writes a double (rewards as float literals). */
export function fieldsText(fields: readonly FieldSpec[], message: object, number: (value: number) => string): string {
  let text = '';
  for (const field of fields) {
    const value = (message as Fields)[field.local];
    if (value === undefined) continue;
    text += `,${JSON.stringify(field.json)}:${field.type === 'double' ? number(value as number) : JSON.stringify(value)}`;
  }
  return text;
}
