import { resolveGroupOptions, type ShapedResult } from '../../core/groups';
import type { Sample, ScoreResult } from '../../core/sample';
import { Engine } from '../../services/engine/engine';
import { chunkHeads, EncodedResult, isEncoded, type ReplyResult } from '../../services/engine/encoded';
import { Scorer, type Scored } from '../../services/engine/scorer';
import { InlineExecutor, PoolExecutor } from '../../services/pool/executor';
import { decodeScoreResponse, decodeScoreResult, encodeScoreRequest, encodeScoreResponse, encodeScoreResult, scanScoreRequest } from '../../services/wire/binary';
import { scoreReplyJson } from '../../services/wire/json';
import { MessageChannel } from 'node:worker_threads';
import { z } from 'zod';
import { Registry } from '../../core/registry';
import { definePure } from '../../core/verifier';
import { scoreChunk } from '../../services/pool/tasks';
import { VERIFIERS } from '../../verifiers';
import { mixedQaBatch, sample } from '../fixtures/samples';
import { TEST_VERIFIERS } from '../fixtures/test-registry';

/**
 * Results a pool thread encodes beside scoring them (services/engine/encoded.ts) are copied into
 * replies as they are: the replies must read exactly as those the main thread encodes from the
 * result objects, in both wire formats, with group summaries on streamed results, and a result
 * replaced after scoring (a reply too large) must be encoded from its new fields. And a batch the
 * server leaves in its bytes (a scanned SampleBatch) must score exactly as the same batch decoded.
 */

const batch = (): Sample[] => [
  ...mixedQaBatch(),
  sample({ id: 'long', verifier: 'qa', response: `\\boxed{${'x'.repeat(5000)}}`, label: { answers: ['y'] }, groupId: 'g9' }),
  sample({ id: 'nope', verifier: 'no-such-verifier', response: '' }),
  sample({ id: 'spun', verifier: 'spin', label: { ops: 10 }, groupId: 'g9' }),
  // Text past one byte a character in UTF-8, where a result's end in bytes is not its length.
  sample({ id: 'é€😀', verifier: 'qa', response: '\\boxed{ü}', label: { answers: ['ü'] } }),
];

describe('results encoded on pool threads, batches left in their bytes', () => {
  const registry = TEST_VERIFIERS.createRegistry();
  const inline = new Scorer(new Engine({ registry, executor: new InlineExecutor(registry) }));
  const pooled = new Scorer(new Engine({ registry, executor: new PoolExecutor(TEST_VERIFIERS, 2) }));
  afterAll(async () => {
    await inline.engine.close();
    await pooled.engine.close();
  });

  const score = (scorer: Scorer, format: 'protobuf' | 'json' | undefined, maxBytes = 1 << 30): Promise<Scored<ReplyResult>> =>
    scorer.score({ samples: batch(), groupOptions: null, reply: { maxBytes, bytesPerChar: format === 'json' ? 6 : 3 }, ...(format ? { format } : {}) });

  it('give the same protobuf reply as results encoded on the main thread', async () => {
    const reference = await score(inline, undefined);
    const scored = await score(pooled, 'protobuf');
    // The pool really encoded them (not those of unknown verifiers, which never reach a thread).
    expect(scored.results.filter(isEncoded).map((r) => [r.id, r.chunk.wire])).toEqual(['a', 'a', 'b', 'c', 'e', 'long', 'spun', 'é€😀'].map((id) => [id, 'protobuf']));
    // The main thread knows an encoded result's head, not its details (they are in its bytes).
    const encoded = scored.results.filter(isEncoded);
    expect(encoded.every((r) => !('details' in r))).toBe(true);
    // @ts-expect-error: code written against ScoreResult cannot be handed an encoded result (tsc fails if it could).
    const whole: ScoreResult = encoded[0]!;
    expect(whole).toBeDefined();
    expect(decodeScoreResponse(encodeScoreResponse(scored.results, scored.groups))).toEqual(
      decodeScoreResponse(encodeScoreResponse(reference.results, reference.groups)),
    );
    // A streamed result carrying its group's summary keeps its own fields.
    const last = scored.results.findIndex((r) => r.id === 'spun');
    const group = scored.groups.find((g) => g.groupId === 'g9')!;
    expect(decodeScoreResult(encodeScoreResult(scored.results[last]!, group))).toEqual({ ...reference.results[last], group });
  });

  it('give the same JSON reply as results encoded on the main thread', async () => {
    const reference = await score(inline, undefined);
    const scored = await score(pooled, 'json');
    expect(scored.results.filter(isEncoded).map((r) => r.chunk.wire)).toEqual(new Array(8).fill('json'));
    expect(JSON.parse(scoreReplyJson(scored.results, scored.groups).toString())).toEqual(JSON.parse(scoreReplyJson(reference.results, reference.groups).toString()));
  });

  it('count their encoded size against the reply limit, and a result cut for it is encoded anew', async () => {
    const reference = await score(inline, undefined);
    const scored = await score(pooled, 'protobuf', 9_000);
    const cut = scored.results.find((r) => r.id === 'long')!;
    expect([cut.status, cut.reason]).toEqual(['ABORTED', 'response_too_large']);
    expect(isEncoded(cut)).toBe(false);
    const reply = decodeScoreResponse(encodeScoreResponse(scored.results, scored.groups));
    expect(reply.results.find((r) => r.id === 'long')).toMatchObject({ status: 'ABORTED', reason: 'response_too_large', details: { limitBytes: 9_000 } });
    // The others fit, and come out as the pool thread encoded them.
    const others = reply.results.filter((r) => r.id !== 'long');
    expect(others).toEqual(decodeScoreResponse(encodeScoreResponse(reference.results, [])).results.filter((r) => r.id !== 'long'));
  });

  it('are not asked for when the call shapes groups (shaping rewrites results from their details)', async () => {
    const options = resolveGroupOptions({ advantage: 'grpo' });
    if (!options.ok) throw new Error(options.error);
    const scored = await pooled.score({ samples: batch(), groupOptions: options.options, format: 'protobuf' });
    expect(scored.results.some(isEncoded)).toBe(false);
    expect((scored.results[0] as ShapedResult).details).toMatchObject({ extracted: 'C' });
  });

  it('score a batch left in its bytes as the decoded batch: pure samples decoded on threads, async ones here, responses measured in characters', async () => {
    const limits = { maxResponseChars: 10 };
    const registry = TEST_VERIFIERS.createRegistry();
    const engine = new Engine({ registry, executor: new PoolExecutor(TEST_VERIFIERS, 2), limits });
    const inlineEngine = new Engine({ registry, executor: new InlineExecutor(registry), limits });
    try {
      const words = { kind: 'constraint', id: 'length_constraints:number_words', kwargs: { num_words: 2, relation: 'at least' } };
      const samples = [
        ...mixedQaBatch(),
        sample({ id: 'if', verifier: 'if', response: 'two words', label: { rubrics: [words] } }),
        sample({ id: 'if-bad', verifier: 'if', response: 'x', label: { rubrics: [{ kind: 'constraint', id: 'no:such' }] } }),
        // 10 characters in 30 bytes: within the limit; 11 in 11 bytes: over it.
        sample({ id: 'wide-chars', verifier: 'qa', response: '€'.repeat(10), label: { choice: 'A' } }),
        sample({ id: 'long', verifier: 'qa', response: 'x'.repeat(11), label: { choice: 'A' } }),
        sample({ id: 'long-async', verifier: 'if', response: '€'.repeat(11), label: { rubrics: [words] } }),
      ];
      const scanned = scanScoreRequest(encodeScoreRequest(samples));
      // @ts-expect-error: a scanned request's samples are routes (no response, label, metadata), not Samples.
      const husk: Sample = scanned.samples.routes[0]!;
      expect(Object.keys(husk).sort()).toEqual(['groupId', 'id', 'responseTokens', 'verifier']);
      const fromBytes = await engine.score(scanned.samples, { encode: 'protobuf' });
      const reference = await inlineEngine.score(samples);
      expect(decodeScoreResponse(encodeScoreResponse(fromBytes, [])).results).toEqual(decodeScoreResponse(encodeScoreResponse(reference, [])).results);
      expect(fromBytes.slice(-5).map((r) => [r.id, r.status, r.reason])).toEqual([
        ['if', 'OK', 'all_rubrics_passed'],
        ['if-bad', 'INVALID', expect.any(String)],
        ['wide-chars', 'OK', expect.any(String)],
        ['long', 'INVALID', 'response: longer than 10 characters'],
        ['long-async', 'INVALID', 'response: longer than 10 characters'],
      ]);
    } finally {
      await engine.close();
      await inlineEngine.close();
    }
  });

  it('survive a thread lost with its chunk: the chunk-mates are packed again and scored, the culprit alone is ABORTED', async () => {
    const registry = TEST_VERIFIERS.createRegistry();
    const engine = new Engine({ registry, executor: new PoolExecutor(TEST_VERIFIERS, 2) });
    try {
      const samples = Array.from({ length: 40 }, (_, i) => sample({ id: `c${i}`, verifier: 'crash', label: { crash: i === 17 } }));
      const scanned = scanScoreRequest(encodeScoreRequest(samples));
      const results = await engine.score(scanned.samples, { encode: 'protobuf' });
      expect(results.filter((r) => r.status !== 'OK').map((r) => [r.id, r.status, r.reason])).toEqual([['c17', 'ABORTED', 'worker_failed']]);
      const reply = decodeScoreResponse(encodeScoreResponse(results, [])).results;
      expect(reply.map((r) => r.id)).toEqual(samples.map((s) => s.id));
      expect(reply.filter((r) => r.reward === 1)).toHaveLength(39);
    } finally {
      await engine.close();
    }
  });

  it('send outcomes back in columns, keeping an ABORTED outcome\'s details for the failure log', () => {
    const broken = definePure({
      name: 'broken',
      version: '1.0.0',
      description: 'test verifier: throws',
      label: z.strictObject({}),
      example: { label: {}, response: '' },
      score() {
        throw new Error('boom');
      },
    });
    const registry = new Registry([...VERIFIERS, broken]);
    const chunk = [sample({ id: 'x', verifier: 'broken' }), sample({ id: 'y', verifier: 'qa', response: '\\boxed{C}', label: { choice: 'C' } })];
    const reply = scoreChunk(registry, chunk, { format: 'protobuf', indices: Int32Array.from([4, 5]) });
    if (!('columns' in reply)) throw new Error('expected columns');
    // As the engine reads them: positions 4 and 5 of a batch.
    const heads = chunkHeads(reply.columns, reply.encoded, [4, 5], [...new Array<Sample>(4).fill(chunk[0]!), ...chunk], (v) => registry.get(v)!.version);
    const [x, y] = [new EncodedResult(heads, 0), new EncodedResult(heads, 1)];
    expect([x.id, x.index, x.status, x.reason, x.verifier, x.verifierVersion]).toEqual(['x', 4, 'ABORTED', 'verifier_error', 'broken', '1.0.0']);
    expect(x.abortedDetails).toMatchObject({ error: expect.stringContaining('boom') });
    expect([y.id, y.index, y.status, y.reward, y.abortedDetails]).toEqual(['y', 5, 'OK', 1, null]);
  });

  it('send back a chunk\'s encoded results in a buffer of their size: a message to the caller\'s thread copies the whole buffer, spare room included', async () => {
    const chunk = batch().filter((s) => s.verifier === 'qa');
    for (const format of ['protobuf', 'json'] as const) {
      const reply = scoreChunk(new Registry(VERIFIERS), chunk, { format, indices: Int32Array.from(chunk.map((_, i) => i)) });
      if (!('encoded' in reply)) throw new Error('expected encoded results');
      const { bytes, ends } = reply.encoded;
      expect(bytes.byteLength).toBe(ends[ends.length - 1]);
      expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
      // As a pool thread's reply crosses: what arrives holds the results' bytes and nothing more.
      const { port1, port2 } = new MessageChannel();
      const arrived = new Promise<Uint8Array>((resolve) => port2.once('message', resolve));
      port1.postMessage(bytes);
      const copy = await arrived;
      port1.close();
      expect(copy.buffer.byteLength).toBe(bytes.byteLength);
      expect(Buffer.from(copy).equals(Buffer.from(bytes))).toBe(true);
    }
  });
});
