import { clone, create, createFileRegistry, fromBinary, toBinary, toJson, type DescField, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FieldDescriptorProtoSchema,
  file_google_protobuf_struct,
  FileDescriptorProtoSchema,
  OneofDescriptorProtoSchema,
} from '@bufbuild/protobuf/wkt';
import type { GroupSummary } from '../../core/groups';
import type { JsonObject } from '../../core/json';
import type { Sample } from '../../core/sample';
import { RESULT_ROW_COLUMNS } from '../../cli/dataset/result-columns';
import {
  byNumber,
  emptySample,
  fieldsBeyond,
  fieldsText,
  fieldsToJson,
  GROUP_BEYOND,
  GROUP_NAMED,
  readField,
  RESULT_NAMED,
  SAMPLE_BEYOND,
  SAMPLE_NAMED,
  RESULT_BEYOND,
  writeFields,
} from '../../services/wire/contract';
import { decodeScoreRequest, decodeScoreResponse, decodeScoreResult, encodeScoreRequest, encodeScoreResponse, encodeScoreResult, scanScoreRequest, type DecodedResult } from '../../services/wire/binary';
import { file_verdict_v1_score, GroupSummarySchema, SampleSchema, ScoreRequestSchema, ScoreResponseSchema, ScoreResultSchema } from '../../services/wire/gen/verdict/v1/score_pb';
import { floatLiteral, resultText, resultToJson, sampleFromJson, scoreReplyJson } from '../../services/wire/json';
import { Reader } from '../../services/wire/reader';
import { Writer } from '../../services/wire/writer';

/**
 * Every field of the generated descriptors, one at a time, through every codec that names fields,
 * against protobuf-es (which reads the same descriptor): a field the proto gains and a codec drops
 * fails here. A copy of the descriptor with fields added goes through the generic code that carries
 * the fields the codecs do not name.
 */

const STATUS_BY_NUMBER = ['UNSPECIFIED', 'OK', 'INVALID', 'ABORTED'] as const;
const GROUP: GroupSummary = { groupId: 'g€', size: 3, ok: 1, aborted: 1, invalid: 1, meanReward: 0.25, keep: false, keepReason: 'too_few_valid' };

/** A value that is not the field's zero, as the domain holds it and as protobuf-es takes it. */
function valueFor(field: DescField): { domain: unknown; proto: unknown } {
  if (field.fieldKind === 'enum') return { domain: STATUS_BY_NUMBER[2], proto: 2 };
  if (field.fieldKind === 'message') {
    if (field.message.typeName === 'google.protobuf.Struct') {
      const struct: JsonObject = { answers: ['é€😀', 1.5, null, true], nested: { deep: [[{}]] } };
      return { domain: struct, proto: struct };
    }
    if (field.message.typeName === 'verdict.v1.GroupSummary') return { domain: GROUP, proto: GROUP };
  }
  if (field.fieldKind === 'scalar') {
    const values: Partial<Record<number, unknown>> = { 9: 'text é€😀', 13: 4242, 1: 0.375, 8: true };
    const value = values[field.scalar];
    if (value !== undefined) return { domain: value, proto: value };
  }
  throw new Error(`${field.parent.typeName}.${field.name}: no test value for this type`);
}

const bytesOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('the Score API contract, field by field from the generated descriptor', () => {
  it.each(SampleSchema.fields.map((f) => [f.name, f] as const))('Sample.%s: written, read, scanned and read from JSON as protobuf-es does', (_name, field) => {
    const { domain, proto } = valueFor(field);
    const sample = Object.assign(emptySample(), { [field.localName]: domain }) as Sample;
    // The hand codec writes label and metadata always (an empty Struct): so does a message that sets them.
    const message = create(SampleSchema, { label: {}, metadata: {}, [field.localName]: proto });
    const request = toBinary(ScoreRequestSchema, create(ScoreRequestSchema, { samples: [message] }));
    expect(bytesOf(encodeScoreRequest([sample]))).toBe(bytesOf(request));
    expect(decodeScoreRequest(request).samples).toEqual([sample]);
    expect(scanScoreRequest(request).encoded.sample(0)).toEqual(sample);
    const parsed = sampleFromJson(toJson(SampleSchema, message), 'sample');
    expect(parsed).toEqual({ ok: true, sample });
  });

  it.each(ScoreResultSchema.fields.map((f) => [f.name, f] as const))('ScoreResult.%s: written and read as protobuf-es does, in JSON and in result rows', (_name, field) => {
    const { domain, proto } = valueFor(field);
    const { group, ...rest } = Object.assign(
      { id: '', index: 0, status: 'OK', reason: '', verifier: '', verifierVersion: '', details: {} },
      { [field.localName]: domain },
    ) as DecodedResult;
    const message = create(ScoreResultSchema, { status: 1, details: {}, [field.localName]: proto });
    const bytes = toBinary(ScoreResultSchema, message);
    expect(bytesOf(encodeScoreResult(rest, group))).toBe(bytesOf(bytes));
    expect(decodeScoreResult(bytes)).toEqual(group ? { ...rest, group } : rest);
    if (field.localName === 'group') {
      // Group summaries are not a result's JSON: the reply's `groups` and the --groups file carry them.
      expect(RESULT_ROW_COLUMNS).not.toContain(field.jsonName);
      return;
    }
    const json = toJson(ScoreResultSchema, message, { alwaysEmitImplicit: true }) as JsonObject;
    expect(resultToJson(rest)).toEqual(json);
    expect(JSON.parse(resultText(rest))).toEqual(json);
    // A result row carries the field, except the position, which `line`/`rollout` give instead.
    if (field.localName === 'index') expect(RESULT_ROW_COLUMNS).not.toContain('index');
    else expect(RESULT_ROW_COLUMNS).toContain(field.jsonName);
  });

  it.each(GroupSummarySchema.fields.map((f) => [f.name, f] as const))('GroupSummary.%s: written and read as protobuf-es does, and in the JSON reply', (_name, field) => {
    const { domain, proto } = valueFor(field);
    const group = { groupId: '', size: 0, ok: 0, aborted: 0, invalid: 0, keep: false, keepReason: '', [field.localName]: domain } as GroupSummary;
    const message = create(ScoreResponseSchema, { groups: [{ [field.localName]: proto }] });
    const bytes = toBinary(ScoreResponseSchema, message);
    expect(bytesOf(encodeScoreResponse([], [group]))).toBe(bytesOf(bytes));
    expect(decodeScoreResponse(bytes).groups).toEqual([Object.fromEntries(Object.entries(group).filter(([, v]) => v !== undefined))]);
    const reply = JSON.parse(scoreReplyJson([], [group]).toString('utf8')) as { groups: JsonObject[] };
    expect(reply.groups).toEqual((toJson(ScoreResponseSchema, message, { alwaysEmitImplicit: true }) as { groups: JsonObject[] }).groups);
  });

  it('the fields the codecs name (samples, results, group summaries) are the descriptor\'s fields today, so the generic code has none of them', () => {
    expect([...SAMPLE_NAMED].sort()).toEqual(SampleSchema.fields.map((f) => f.localName).sort());
    expect([...RESULT_NAMED].sort()).toEqual(ScoreResultSchema.fields.map((f) => f.localName).sort());
    expect([...GROUP_NAMED].sort()).toEqual(GroupSummarySchema.fields.map((f) => f.localName).sort());
    expect(SAMPLE_BEYOND).toEqual([]);
    expect(RESULT_BEYOND).toEqual([]);
    expect(GROUP_BEYOND).toEqual([]);
  });
});

/** score.proto's descriptor with fields added to ScoreResult and Sample, as protoc would write them. */
function widened(): { result: DescMessage; sample: DescMessage } {
  const file = clone(FileDescriptorProtoSchema, file_verdict_v1_score.proto);
  const message = (name: string) => file.messageType.find((m) => m.name === name)!;
  const add = (name: string, field: { name: string; jsonName: string; number: number; type: FieldDescriptorProto_Type; typeName?: string; optional?: boolean }) => {
    const target = message(name);
    const proto = create(FieldDescriptorProtoSchema, {
      name: field.name,
      jsonName: field.jsonName,
      number: field.number,
      type: field.type,
      label: FieldDescriptorProto_Label.OPTIONAL,
      ...(field.typeName ? { typeName: field.typeName } : {}),
    });
    if (field.optional) {
      // proto3 `optional`: a synthetic oneof of its own.
      target.oneofDecl.push(create(OneofDescriptorProtoSchema, { name: `_${field.name}` }));
      proto.oneofIndex = target.oneofDecl.length - 1;
      proto.proto3Optional = true;
    }
    target.field.push(proto);
  };
  add('ScoreResult', { name: 'trace_id', jsonName: 'traceId', number: 11, type: FieldDescriptorProto_Type.STRING });
  add('ScoreResult', { name: 'cost', jsonName: 'cost', number: 12, type: FieldDescriptorProto_Type.DOUBLE, optional: true });
  add('ScoreResult', { name: 'flagged', jsonName: 'flagged', number: 13, type: FieldDescriptorProto_Type.BOOL });
  add('ScoreResult', { name: 'tokens', jsonName: 'tokens', number: 14, type: FieldDescriptorProto_Type.UINT32 });
  add('ScoreResult', { name: 'evidence', jsonName: 'evidence', number: 15, type: FieldDescriptorProto_Type.MESSAGE, typeName: '.google.protobuf.Struct' });
  add('Sample', { name: 'prompt', jsonName: 'prompt', number: 8, type: FieldDescriptorProto_Type.STRING });
  const registry = createFileRegistry(file, (name) => (name === 'google/protobuf/struct.proto' ? file_google_protobuf_struct : undefined));
  return { result: registry.getMessage('verdict.v1.ScoreResult')!, sample: registry.getMessage('verdict.v1.Sample')! };
}

describe('a field the proto gains, on a copy of the descriptor', () => {
  const { result, sample } = widened();
  const beyond = fieldsBeyond(result, RESULT_NAMED);
  const added = { traceId: 'trace é€', cost: 0.5, flagged: true, tokens: 300, evidence: { cited: ['a', 1] } };

  it('is found by the codecs as a field they do not name, with its type and presence', () => {
    expect(beyond.map((f) => [f.local, f.type, f.explicit])).toEqual([
      ['traceId', 'string', false],
      ['cost', 'double', true],
      ['flagged', 'bool', false],
      ['tokens', 'uint32', false],
      ['evidence', 'struct', true],
    ]);
    expect(fieldsBeyond(sample, SAMPLE_NAMED).map((f) => f.local)).toEqual(['prompt']);
  });

  it('is written and read by the generic code as protobuf-es writes and reads it, zeros left out', () => {
    const writer = new Writer(256);
    writeFields(writer, beyond, added);
    const bytes = writer.finish();
    expect(bytesOf(bytes)).toBe(bytesOf(toBinary(result, create(result, added))));
    const zeros = new Writer(64);
    writeFields(zeros, beyond, { traceId: '', flagged: false, tokens: 0, evidence: {} });
    // A Struct is written even empty, as the codecs write label, metadata and details.
    expect(bytesOf(zeros.finish())).toBe(bytesOf(toBinary(result, create(result, { evidence: {} }))));

    const read: Record<string, unknown> = {};
    const reader = new Reader(toBinary(result, create(result, added)));
    const numbers = byNumber(beyond);
    while (reader.pos < reader.len) {
      const [number, wireType] = reader.tag();
      expect(readField(reader, numbers.get(number)!, wireType, read)).toBe(true);
    }
    expect(read).toEqual(added);
    expect(fromBinary(result, bytes)).toMatchObject(added);
  });

  it('is written in a result\'s JSON as protobuf-es writes its proto3 JSON, doubles as float literals', () => {
    const json = toJson(result, create(result, { status: 1, ...added })) as Record<string, JsonValue>;
    const picked = Object.fromEntries(beyond.map((f) => [f.json, json[f.json]]));
    expect(fieldsToJson({}, beyond, added)).toEqual(picked);
    const text = `{${fieldsText(beyond, added, floatLiteral).slice(1)}}`;
    expect(JSON.parse(text)).toEqual(picked);
    expect(text).toContain('"cost":0.5');
  });

  it('of a type the codecs cannot carry stops them at start-up, naming it', () => {
    const file = clone(FileDescriptorProtoSchema, file_verdict_v1_score.proto);
    file.messageType
      .find((m) => m.name === 'ScoreResult')!
      .field.push(create(FieldDescriptorProtoSchema, { name: 'big', jsonName: 'big', number: 16, type: FieldDescriptorProto_Type.INT64, label: FieldDescriptorProto_Label.OPTIONAL }));
    const registry = createFileRegistry(file, (name) => (name === 'google/protobuf/struct.proto' ? file_google_protobuf_struct : undefined));
    expect(() => fieldsBeyond(registry.getMessage('verdict.v1.ScoreResult')!, RESULT_NAMED)).toThrow('verdict.v1.ScoreResult.big');
  });
});
