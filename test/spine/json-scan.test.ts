import type { JsonObject } from '../../core/json';
import type { Sample } from '../../core/sample';
import { decodePackedJsonSamples, scanJsonScoreRequest } from '../../services/wire/json-scan';
import { scoreRequestFromJson } from '../../services/wire/request';
import { sample } from '../fixtures/samples';

/** The full read of a body, as the gateway does it when the scan declines: the samples, or why not. */
function fullRead(body: string): Sample[] | string {
  let json: unknown;
  try {
    json = JSON.parse(body.replace(/^\uFEFF/, ''));
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
  const parsed = scoreRequestFromJson(json);
  if (!parsed.ok) return parsed.error;
  if (parsed.rejected.size > 0 || parsed.groupOptions) return 'rejected samples or group options';
  return parsed.samples;
}

/** A body the scan takes gives what the full read gives: routing fields, whole samples, packed chunks. */
function expectSameAsFullRead(body: string): void {
  const full = fullRead(body);
  if (typeof full === 'string') throw new Error(`the full read refuses the body: ${full}`);
  const scanned = scanJsonScoreRequest(Buffer.from(body));
  expect(scanned).not.toBeNull();
  expect(scanned!.samples.routes).toEqual(full.map(({ id, verifier, groupId, responseTokens }) => ({ id, verifier, groupId, responseTokens })));
  full.forEach((s, i) => {
    expect(scanned!.samples.sample(i)).toEqual(s);
    expect(scanned!.samples.responseCharsAtMost(i)).toBeGreaterThanOrEqual(s.response.length);
  });
  const indices = full.map((_, i) => i).filter((i) => i % 3 !== 1);
  const packed = scanned!.samples.chunk(indices);
  expect(packed.wire).toBe('json');
  expect(decodePackedJsonSamples(packed.bytes)).toEqual(indices.map((i) => full[i]));
}

const texts = ['', 'a', 'é', '€', '😀', 'tab\there', 'quote " and \\ backslash', '\u0001 control, escaped', 'x'.repeat(5_000)];
const label: JsonObject = { answers: texts, nested: { list: [1, -2.5, 1e300, 0, -0.125e-7, null, true, false, { deep: [[['x']]] }], empty: {}, none: [] } };
const samples = texts.map((text, i) =>
  sample({ id: `id-${text.slice(0, 40)}`, verifier: 'qa', response: text, label, groupId: i % 2 ? 'g€' : '', responseTokens: i * 1000, metadata: { messages: [{ role: 'user', content: text }] } }),
);

function nested(depth: number): JsonObject {
  let value: JsonObject = {};
  for (let level = 1; level < depth; level++) value = { v: value };
  return value;
}

describe('the /v1/score scan, against the full read of the same body', () => {
  it('takes plain bodies, compact or pretty, and gives the full read’s samples', () => {
    expectSameAsFullRead(JSON.stringify({ samples }));
    expectSameAsFullRead(JSON.stringify({ samples }, null, 2));
    expectSameAsFullRead(`\uFEFF${JSON.stringify({ samples: samples.slice(0, 2) })}`);
    expectSameAsFullRead(' \r\n\t{ "samples" : [ ] } \n');
    expectSameAsFullRead('{}');
    expectSameAsFullRead('{"samples": null, "groupOptions": null}');
    // Both spellings, unset fields, escaped text in routing fields, numbers written other ways.
    expectSameAsFullRead(
      '{"samples":[{"id":"a\\"b\\u00e9","verifier":"q\\u0061","group_id":"g\\/1","response_tokens":12.0,"response":null,"label":{}},' +
        '{"id":"x","verifier":"qa","groupId":null,"responseTokens":1e3,"metadata":{"k":[]}},{}]}',
    );
    // Labels nested to the limit (32 levels) are the scan's; past it, the full read's.
    expectSameAsFullRead(JSON.stringify({ samples: [sample({ verifier: 'qa', label: nested(32) })] }));
    expect(scanJsonScoreRequest(Buffer.from(JSON.stringify({ samples: [sample({ verifier: 'qa', label: nested(33) })] })))).toBeNull();
  });

  it('leaves to the full read every body it does not prove plain and valid', () => {
    const good = '{"id":"a","verifier":"qa","response":"r","label":{}}';
    const declined = [
      '',
      '   ',
      '[]',
      `{"samples":[${good}]`,
      `{"samples":[${good},]}`,
      `{"samples":[${good}]} x`,
      `{'samples':[]}`,
      '{"samples":[{"id":"a\u0001"}]}',
      '{"samples":[{"id":"a\\x"}]}',
      '{"samples":[{"id":"\\u00g1"}]}',
      '{"samples":[{"responseTokens":01}]}',
      '{"samples":[{"responseTokens":NaN}]}',
      '{"samples":[{"label":{"a":tru}}]}',
      '{"samples":[{"label":{"a":1.}}]}',
      // Types and fields the full read refuses.
      '{"samples":[{"id":5}]}',
      '{"samples":[{"label":[]}]}',
      '{"samples":[{"responseTokens":-1}]}',
      '{"samples":[{"responseTokens":1.5}]}',
      '{"samples":[{"responseTokens":4294967296}]}',
      '{"samples":[{"unknown":1}]}',
      '{"samples":{}}',
      '{"samples":[[]]}',
      '{"other":1}',
      // Legal, but left to the full read: a uint32 as a string, repeated or aliased fields, an escaped name, group options.
      '{"samples":[{"responseTokens":"12"}]}',
      '{"samples":[{"id":"a","id":"b"}]}',
      '{"samples":[{"groupId":"a","group_id":"b"}]}',
      '{"samples":[{"\\u0069d":"a"}]}',
      '{"samples":[],"samples":[]}',
      '{"samples":[],"groupOptions":{"lengthPenalty":true}}',
    ];
    for (const body of declined) expect([body, scanJsonScoreRequest(Buffer.from(body))]).toEqual([body, null]);
  });

  it('never takes a body the full read refuses, nor reads one differently (mutated bodies, fixed seed)', () => {
    const base = JSON.stringify({ samples: samples.slice(0, 3).map((s) => ({ ...s, response: s.response.slice(0, 30) })) });
    const alphabet = Buffer.from('{}[]":,\\/ -+.0123456789eEtrufalsn\u0001\tabcdefgu');
    let seed = 12345;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let taken = 0;
    for (let round = 0; round < 3000; round++) {
      const bytes = Buffer.from(base);
      for (let edits = 1 + random(2); edits > 0; edits--) bytes[random(bytes.length)] = alphabet[random(alphabet.length)]!;
      const body = bytes.toString('utf8');
      if (scanJsonScoreRequest(bytes) === null) continue;
      taken++;
      expectSameAsFullRead(body);
    }
    // Some mutations keep the body valid (inside strings, mostly): the comparison above ran.
    expect(taken).toBeGreaterThan(100);
  });
});
