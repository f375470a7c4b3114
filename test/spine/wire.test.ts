import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { create, fromBinary, fromJson, toBinary, toJson, type JsonValue } from '@bufbuild/protobuf';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { JsonObject } from '../../core/json';
import type { GroupSummary, ShapedResult } from '../../core/groups';
import { packageRoot } from '../../services/paths';
import { decodeScoreRequest, decodeScoreResponse, encodeScoreRequest, encodeScoreResponse, scanScoreRequest } from '../../services/wire/binary';
import { ScoreRequestSchema, ScoreResponseSchema } from '../../services/wire/gen/verdict/v1/score_pb';
import { groupOptionsFromJson } from '../../services/wire/group-options';
import { sampleFromJson, scoreReplyJson } from '../../services/wire/json';
import { Reader } from '../../services/wire/reader';
import { Writer } from '../../services/wire/writer';
import { sample } from '../fixtures/samples';

/** Strings of every UTF-8 width and lengths around the writer's one-byte and multi-byte length cases. */
const texts = ['', 'a', 'é', '€', '😀', 'x'.repeat(42), 'y'.repeat(43), 'ü'.repeat(200), 'z'.repeat(20_000), 'mixed é€😀 text'];

const label: JsonObject = {
  answers: texts,
  nested: { list: [1, -2.5, 1e300, null, true, false, { deep: [[['x']]] }], empty: {}, none: [] },
  threshold: 0.9,
};

const samples = texts.map((text, i) =>
  sample({ id: `id-${text}`, verifier: 'qa', response: text, label, groupId: i % 2 ? 'g' : '', responseTokens: i * 1000, metadata: { messages: [{ role: 'user', content: text }] } }),
);

describe('the Score API wire codec, against the generated messages of @bufbuild/protobuf', () => {
  it('nested bodies of every length-prefix width come out as protobuf-es writes them', () => {
    // Each varint width's edges (1 byte below 128, 2 below 2^14, 3 below 2^21, then 4), a body
    // inside a body, and a small body after a large one in the same writer.
    for (const length of [0, 1, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152]) {
      const body = 'b'.repeat(Math.max(0, length - 3));
      const ours = new Writer(16).tag(1, WireType.LengthDelimited).fork().tag(2, WireType.LengthDelimited).string(body).join().tag(3, WireType.LengthDelimited).fork().tag(4, WireType.Varint).uint32(length).join().finish();
      const theirs = new BinaryWriter().tag(1, WireType.LengthDelimited).fork().tag(2, WireType.LengthDelimited).string(body).join().tag(3, WireType.LengthDelimited).fork().tag(4, WireType.Varint).uint32(length).join().finish();
      expect(Buffer.from(ours).equals(Buffer.from(theirs))).toBe(true);
    }
  });

  it('strings of every UTF-8 width and length class come out as protobuf-es writes them', () => {
    // Around the writer's short-ASCII copy (under 8 units), its one-byte length (under 43), the
    // reader's names (up to 32 bytes) and a non-ASCII unit first, last or after ASCII (the copy
    // gives way to Buffer.write); a string built by concatenation, as verifiers build details.
    const built = ['-12', ' - 4*x', ' + x^2'].reduce((a, b) => a + b);
    const strings = [...texts, 'a'.repeat(7), 'a'.repeat(8), 'abcdefé', 'a'.repeat(16), 'a'.repeat(15) + 'é', 'a'.repeat(31), 'b'.repeat(32), 'b'.repeat(33), 'abcé', 'é' + 'c'.repeat(30), 'ab\u007f', '\u0080', 'x\ud800y', '\udfff', built];
    for (const text of strings) {
      const ours = new Writer(4).tag(1, WireType.LengthDelimited).string(text).tag(2, WireType.LengthDelimited).string(text).finish();
      const theirs = new BinaryWriter().tag(1, WireType.LengthDelimited).string(text).tag(2, WireType.LengthDelimited).string(text).finish();
      expect([text, Buffer.from(ours).toString('hex')]).toEqual([text, Buffer.from(theirs).toString('hex')]);
      // Verdict's reader gives back what protobuf-es's reads (short ASCII is built in JavaScript there
      // too), as a string and as a name (the second read of a name may come from the cache).
      for (const read of ['string', 'name'] as const) {
        const reader = new Reader(theirs);
        const library = new BinaryReader(theirs);
        for (let field = 0; field < 2; field++) {
          reader.tag();
          library.tag();
          expect(reader[read]()).toBe(library.string());
        }
      }
    }
  });

  it('names read from the cache are the names in the bytes, however their hashes collide', () => {
    // Far more names than cache slots, read in two interleaved passes: every read must give the
    // bytes' own string, whether the slot holds it, another name, or nothing.
    const names = Array.from({ length: 2000 }, (_, i) => (i % 3 === 0 ? `key_${i}` : i % 3 === 1 ? `${i}é` : String.fromCharCode(97 + (i % 26)).repeat(1 + (i % 40))));
    const writer = new Writer(16);
    for (const name of [...names, ...names.slice().reverse(), ...names]) writer.tag(1, WireType.LengthDelimited).string(name);
    const reader = new Reader(writer.finish());
    const read: string[] = [];
    while (reader.pos < reader.len) {
      reader.tag();
      read.push(reader.name());
    }
    expect(read).toEqual([...names, ...names.slice().reverse(), ...names]);
  });

  it('a request written by Verdict reads back the same with protobuf-es, and the other way round', () => {
    const bytes = encodeScoreRequest(samples, { lengthPenalty: true, maxLength: 100, keepMax: 0.5 });
    const viaLibrary = toJson(ScoreRequestSchema, fromBinary(ScoreRequestSchema, bytes)) as { samples: JsonObject[]; groupOptions: JsonObject };
    expect(viaLibrary.groupOptions).toEqual({ lengthPenalty: true, maxLength: 100, keepMax: 0.5 });
    viaLibrary.samples.forEach((s, i) => {
      const parsed = sampleFromJson(s, `samples[${i}]`);
      expect(parsed).toEqual({ ok: true, sample: samples[i] });
    });

    const libraryBytes = toBinary(ScoreRequestSchema, fromJson(ScoreRequestSchema, viaLibrary as unknown as JsonValue));
    const decoded = decodeScoreRequest(libraryBytes);
    expect(decoded.samples).toEqual(samples);
    expect(decoded.rejected.size).toBe(0);
    expect(decoded.groupOptions).toEqual(groupOptionsFromJson({ lengthPenalty: true, maxLength: 100, keepMax: 0.5 }));
  });

  it('a response written by Verdict reads back the same with protobuf-es and with Verdict', () => {
    const results: ShapedResult[] = samples.map((s, index) => ({
      id: s.id,
      index,
      status: index % 3 === 0 ? 'ABORTED' : 'OK',
      ...(index % 3 === 0 ? {} : { reward: index / 7 }),
      reason: s.response,
      verifier: 'qa',
      verifierVersion: '1.0.0',
      details: index % 2 ? label : {},
      ...(index === 4 ? { advantage: -1.25 } : {}),
    }));
    const groups: GroupSummary[] = [
      { groupId: 'g', size: 5, ok: 3, aborted: 2, invalid: 0, meanReward: 0.5, keep: true, keepReason: '' },
      { groupId: 'h€', size: 4, ok: 4, aborted: 0, invalid: 0, meanReward: 0.75, meanRawReward: 1, shortestCorrect: 17, keep: false, keepReason: 'too_easy' },
      { groupId: 'none', size: 1, ok: 0, aborted: 0, invalid: 1, keep: false, keepReason: 'too_few_valid' },
    ];
    const bytes = encodeScoreResponse(results, groups);
    const viaLibrary = toJson(ScoreResponseSchema, fromBinary(ScoreResponseSchema, bytes), { alwaysEmitImplicit: true }) as {
      results: JsonObject[];
      groups: JsonObject[];
    };
    expect(viaLibrary.results.map((r) => [r.id, r.index, r.status, r.reward, r.details, r.advantage])).toEqual(
      results.map((r) => [r.id, r.index, `STATUS_${r.status}`, r.reward, r.details, r.advantage]),
    );
    expect(viaLibrary.groups[0]).toMatchObject({ groupId: 'g', size: 5, ok: 3, aborted: 2, meanReward: 0.5, keep: true });
    expect(viaLibrary.groups[1]).toMatchObject({ groupId: 'h€', meanRawReward: 1, shortestCorrect: 17, keep: false, keepReason: 'too_easy' });
    expect(decodeScoreResponse(bytes)).toEqual({ results, groups });
    expect(decodeScoreResponse(toBinary(ScoreResponseSchema, create(ScoreResponseSchema, fromBinary(ScoreResponseSchema, bytes))))).toEqual({ results, groups });
  });

  it('a response as JSON text (HTTP) reads as protobuf-es writes its proto3 JSON, rewards as float literals', () => {
    const results: ShapedResult[] = samples.map((s, index) => ({
      id: `${s.id} "q" \\ é`,
      index,
      status: index % 3 === 0 ? 'ABORTED' : index % 3 === 1 ? 'OK' : 'INVALID',
      ...(index % 3 === 1 ? { reward: index % 2 ? index : index / 7 } : {}),
      reason: s.response,
      verifier: 'qa',
      verifierVersion: '1.0.0',
      details: index % 2 ? { ...label, text: 'a\u0001\n√€😀' } : {},
      ...(index === 4 ? { advantage: 2 } : {}),
    }));
    const groups: GroupSummary[] = [
      { groupId: 'h€', size: 4, ok: 4, aborted: 0, invalid: 0, meanReward: 1, meanRawReward: 2, shortestCorrect: 17, keep: false, keepReason: 'too_easy' },
    ];
    const text = scoreReplyJson(results, groups).toString('utf8');
    const viaLibrary = toJson(ScoreResponseSchema, fromBinary(ScoreResponseSchema, encodeScoreResponse(results, groups)), { alwaysEmitImplicit: true }) as {
      results: JsonObject[];
      groups: JsonObject[];
    };
    const parsed = JSON.parse(text) as { results: JsonObject[]; groups: JsonObject[] };
    expect(parsed.results).toEqual(viaLibrary.results.map(({ group: _group, ...rest }) => rest));
    expect(parsed.groups).toEqual(viaLibrary.groups);
    // An integer reward is written `1.0`, so Python's json reads a float, as trainers' tensors need.
    const rewards = [...text.matchAll(/"(reward|advantage|meanReward|meanRawReward)":(-?[\d.e+-]+)/g)].map((m) => m[2]!);
    expect(rewards.length).toBe(results.filter((r) => r.reward !== undefined).length + 3);
    for (const literal of rewards) expect(literal).toMatch(/[.e]/);
  });

  it('a server scan of a request keeps routing fields, leaves the rest in bytes, and refuses what a full decode refuses', () => {
    const deep: JsonObject = { v: 0 };
    let node = deep;
    for (let i = 0; i < 40; i++) node = (node.v = { v: i }) as JsonObject;
    const batch = [...samples, sample({ id: 'deep', verifier: 'qa', label: deep }), sample({ id: 'deep-meta', verifier: 'qa', metadata: deep })];
    const bytes = encodeScoreRequest(batch);
    const full = decodeScoreRequest(bytes);
    const scanned = scanScoreRequest(bytes);
    expect(scanned.rejected).toEqual(full.rejected);
    expect([...scanned.rejected.keys()]).toEqual([samples.length, samples.length + 1]);
    // Routing fields only; the bytes answer the rest.
    expect(scanned.samples.routes).toEqual(batch.map(({ id, verifier, groupId, responseTokens }) => ({ id, verifier, groupId, responseTokens })));
    batch.forEach((s, i) => expect(scanned.samples.responseCharsAtMost(i)).toBe(Buffer.byteLength(s.response)));
    samples.forEach((s, i) => expect(scanned.samples.sample(i)).toEqual(s));
    // A packed chunk is a ScoreRequest of just those samples, in that order.
    expect(decodeScoreRequest(scanned.samples.chunk([7, 0, 3]).bytes).samples).toEqual([samples[7], samples[0], samples[3]]);
    // Adjacent samples are copied as one range; a field between them (group options) is left out.
    expect(decodeScoreRequest(scanned.samples.chunk([2, 3, 4]).bytes).samples).toEqual(samples.slice(2, 5));
    expect(scanned.samples.chunk([2, 3, 4]).bytes.buffer.byteLength).toBeLessThan(bytes.length / 2);
    const split = Buffer.concat([encodeScoreRequest(samples.slice(0, 2)), encodeScoreRequest([], { maxLength: 9 }), encodeScoreRequest(samples.slice(2, 4))]);
    const withOptions = scanScoreRequest(split).samples.chunk([0, 1, 2, 3]).bytes;
    expect(decodeScoreRequest(withOptions)).toMatchObject({ samples: samples.slice(0, 4), groupOptions: null });
    // Malformed bytes are refused by both with the same error: a cut message, and a string inside a
    // label whose length runs past the end (the scan checks what it does not build).
    const inLabel = Buffer.from(encodeScoreRequest([sample({ verifier: 'qa', label: { key: 'value' } })]));
    inLabel[inLabel.indexOf(Buffer.from('value')) - 1] = 0x7f;
    for (const broken of [bytes.subarray(0, bytes.length - 3), inLabel]) {
      const error = (() => {
        try {
          decodeScoreRequest(broken);
        } catch (e) {
          return e as Error;
        }
        throw new Error('decoded');
      })();
      expect(error).toBeInstanceOf(RangeError);
      expect(() => scanScoreRequest(broken)).toThrow(error.message);
    }
  });

  it('the JSON mapping takes both spellings of every field from the descriptor and names the field in errors', () => {
    expect(sampleFromJson({ group_id: 'a', response_tokens: '12' }, 's')).toMatchObject({ ok: true, sample: { groupId: 'a', responseTokens: 12 } });
    expect(sampleFromJson({ responseTokens: -1 }, 's')).toEqual({ ok: false, error: 's.responseTokens: expected a non-negative integer (uint32), received -1' });
    expect(sampleFromJson({ label: [] }, '')).toEqual({ ok: false, error: 'label: expected object, received array' });
    expect(sampleFromJson({ labels: {} }, 'samples[2]')).toEqual({ ok: false, error: 'samples[2].labels: unknown field' });
    expect(groupOptionsFromJson({ min_valid: 3, keep_min: 0.1, keepMax: 0.9 })).toMatchObject({ ok: true, options: { minValid: 3, keepMin: 0.1, keepMax: 0.9 } });
    expect(groupOptionsFromJson({ advantage: 1 })).toEqual({ ok: false, error: 'group_options.advantage: expected string, received number' });
  });

  const protoc = spawnSync('protoc', ['--version']).status === 0;
  (protoc ? it : it.skip)('the committed generated code is what protoc-gen-es makes of proto/ (runs where protoc is installed)', () => {
    const root = packageRoot();
    const out = mkdtempSync(path.join(tmpdir(), 'verdict-gen-'));
    execFileSync(
      'protoc',
      ['-I', 'proto', `--plugin=protoc-gen-es=${path.join(root, 'node_modules/.bin/protoc-gen-es')}`, `--es_out=${out}`, '--es_opt=target=ts,import_extension=none', 'proto/verdict/v1/score.proto'],
      { cwd: root },
    );
    const generated = readFileSync(path.join(out, 'verdict/v1/score_pb.ts'), 'utf8');
    expect(generated).toBe(readFileSync(path.join(root, 'services/wire/gen/verdict/v1/score_pb.ts'), 'utf8'));
  });
});
