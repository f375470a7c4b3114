import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { clone, createFileRegistry, fromBinary } from '@bufbuild/protobuf';
import { file_google_protobuf_struct, FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { file_verdict_v1_score } from '../../services/wire/gen/verdict/v1/score_pb';
import { ScorerClient } from '../../services/grpc/client';
import type { RunningServer } from '../../services/server';
import { mixedQaBatch, sample } from '../fixtures/samples';
import { startTestServer } from '../fixtures/server';

const spin = (n: number, ops: number) => Array.from({ length: n }, (_, i) => sample({ id: `s${i}`, verifier: 'spin', label: { ops } }));

describe('gRPC Scorer over loopback', () => {
  let server: RunningServer;
  let client: ScorerClient;
  beforeAll(async () => {
    server = await startTestServer({ limits: { maxPendingSamples: 100 } });
    client = new ScorerClient(`127.0.0.1:${server.grpcPort}`);
  });
  afterAll(async () => {
    client.close();
    await server.shutdown();
  });

  it('Score answers a mixed batch in input order, reward absent unless OK, with group summaries', async () => {
    const batch = mixedQaBatch();
    const { results, groups } = await client.score(batch);
    expect(results.map((r) => [r.id, r.status, r.reward])).toEqual([
      ['a', 'OK', 1],
      ['a', 'OK', 0],
      ['b', 'OK', 1],
      ['c', 'INVALID', undefined],
      ['d', 'INVALID', undefined],
      ['e', 'OK', 0],
      ['f', 'INVALID', undefined],
    ]);
    expect(results[3]!.reason).toBe('label.answers[0]: expected a string');
    expect(results[0]!.details).toEqual({ extracted: 'C', rule: 'boxed', letter: 'C', reference: 'C' });
    expect(groups.map((g) => [g.groupId, g.size, g.ok, g.invalid, g.meanReward])).toEqual([
      ['g1', 2, 2, 0, 0.5],
      ['g2', 3, 1, 2, 1],
      ['g3', 1, 0, 1, undefined],
    ]);
  });

  it('ScoreStream sends every result once, with its input index', async () => {
    const batch = mixedQaBatch();
    const streamed = await client.scoreStreamAll(batch);
    const { results } = await client.score(batch);
    expect([...streamed].sort((a, b) => a.index - b.index)).toEqual(results);
  });

  it('ScoreStreamBatches sends every result once, in fewer messages than results, with every group summary', async () => {
    const batch = [...mixedQaBatch(), ...Array.from({ length: 84 }, (_, i) => sample({ id: `q${i}`, verifier: 'qa', groupId: `p${i % 12}`, response: `\\boxed{${'ABCD'[i % 4]}}`, label: { choice: 'B' } }))];
    const streamed = await client.scoreStreamBatchesAll(batch);
    const { results, groups } = await client.score(batch);
    expect([...streamed.results].sort((a, b) => a.index - b.index)).toEqual(results);
    expect(streamed.messages).toBeGreaterThan(0);
    expect(streamed.messages).toBeLessThan(results.length / 10);
    const byId = (g: { groupId: string }, h: { groupId: string }) => g.groupId.localeCompare(h.groupId);
    expect([...streamed.groups].sort(byId)).toEqual([...groups].sort(byId));
  });

  it('ScoreStreamBatches: each message as it comes', async () => {
    const messages: number[] = [];
    for await (const batch of client.scoreStreamBatches(mixedQaBatch())) messages.push(batch.results.length);
    expect(messages.reduce((a, b) => a + b, 0)).toBe(7);
  });

  it('ScoreStreamBatches cancelled by the client: the call ends CANCELLED and its work is dropped', async () => {
    const stream = client.scoreStreamBatches(spin(4, 2_000_000_000));
    const ended = (async () => {
      try {
        for await (const batch of stream) expect(batch).toBeUndefined();
        return null;
      } catch (error) {
        return error;
      }
    })();
    for (let i = 0; i < 200 && server.engine.pendingSamples() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    stream.cancel();
    expect(await ended).toMatchObject({ code: grpc.status.CANCELLED });
    for (let i = 0; i < 200 && server.engine.pendingSamples() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(server.engine.pendingSamples()).toBe(0);
  });

  it.each([
    ['ScoreStream', (deadlineMs: number) => client.scoreStreamAll(spin(40, 50_000_000), { deadlineMs })],
    ['ScoreStreamBatches', async (deadlineMs: number) => (await client.scoreStreamBatchesAll(spin(40, 50_000_000), { deadlineMs })).results],
  ])('%s past its deadline returns the samples not reached as ABORTED "deadline"', async (_name, stream) => {
    const results = await stream(3000);
    expect(results).toHaveLength(40);
    const aborted = results.filter((r) => r.status === 'ABORTED');
    expect(aborted.length).toBeGreaterThan(0);
    for (const r of aborted) expect(r.reason).toBe('deadline');
  });

  it('refuses a batch past the queue limit with RESOURCE_EXHAUSTED', async () => {
    const busy = client.score(spin(90, 2_000_000));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(client.score(spin(20, 1))).rejects.toMatchObject({ code: grpc.status.RESOURCE_EXHAUSTED });
    await expect(client.scoreStreamAll(spin(20, 1))).rejects.toMatchObject({ code: grpc.status.RESOURCE_EXHAUSTED });
    await expect(client.scoreStreamBatchesAll(spin(20, 1))).rejects.toMatchObject({ code: grpc.status.RESOURCE_EXHAUSTED });
    expect((await busy).results.every((r) => r.status === 'OK')).toBe(true);
  });

  it('ListVerifiers publishes each label schema as JSON Schema text', async () => {
    const verifiers = await client.listVerifiers();
    const qa = verifiers.find((v) => v.name === 'qa');
    expect(qa?.version).toBe('1.4.0');
    const schema = JSON.parse(qa!.labelSchema) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['answers', 'choice', 'threshold']));
  });

  it('ListVerifiers carries what GET /v1/verifiers answers: config sections and example, the schema as text', async () => {
    const listed = await client.listVerifiers();
    const http = (await (await fetch(`http://127.0.0.1:${server.httpPort}/v1/verifiers`)).json()) as { verifiers: Array<Record<string, unknown>> };
    expect(listed.map(({ labelSchema, ...rest }) => ({ ...rest, labelSchema: JSON.parse(labelSchema) as unknown }))).toEqual(http.verifiers);
    // Not vacuous: the test registry has verifiers that read config sections and examples with metadata or no reward.
    expect(listed.some((v) => v.sections.length > 0)).toBe(true);
    expect(listed.every((v) => v.example !== null && v.example.response !== undefined)).toBe(true);
  });

  it('ListVerifiers answers an older client, which knows only name, version, description and schema', async () => {
    // An old client's stub: the same method, a reply message with only fields 1-4 (unknown fields are skipped).
    const old = new grpc.Client(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure());
    const reply = await new Promise<Buffer>((resolve, reject) =>
      old.makeUnaryRequest('/verdict.v1.Scorer/ListVerifiers', (x: Buffer) => x, (x: Buffer) => x, Buffer.alloc(0), (e, r) => (e ? reject(e) : resolve(r!))),
    );
    old.close();
    // The descriptor as it was before sections and example (fields 5 and 6 of VerifierInfo).
    const file = clone(FileDescriptorProtoSchema, file_verdict_v1_score.proto);
    const info = file.messageType.find((m) => m.name === 'VerifierInfo')!;
    info.field = info.field.filter((f) => f.number <= 4);
    const registry = createFileRegistry(file, (name) => (name === 'google/protobuf/struct.proto' ? file_google_protobuf_struct : undefined));
    const decoded = fromBinary(registry.getMessage('verdict.v1.ListVerifiersResponse')!, reply) as unknown as { verifiers: Array<{ name: string; labelSchema: string }> };
    expect(decoded.verifiers.map((v) => v.name)).toEqual((await client.listVerifiers()).map((v) => v.name));
    expect(JSON.parse(decoded.verifiers[0]!.labelSchema)).toHaveProperty('type');
  });

  it('serves grpc.health.v1 and server reflection', async () => {
    const { protoPath } = require('grpc-health-check') as { protoPath: string };
    const def = grpc.loadPackageDefinition(protoLoader.loadSync(protoPath, { enums: String })) as unknown as {
      grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
    };
    const health = new def.grpc.health.v1.Health(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
      Check(req: unknown, cb: (e: Error | null, r: { status: string }) => void): void;
    };
    const reply = await new Promise<{ status: string }>((resolve, reject) =>
      health.Check({ service: 'verdict.v1.Scorer' }, (e, r) => (e ? reject(e) : resolve(r))),
    );
    expect(reply.status).toBe('SERVING');
    health.close();

    const reflectionProto = require.resolve('@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto');
    const rdef = grpc.loadPackageDefinition(protoLoader.loadSync(reflectionProto)) as unknown as {
      grpc: { reflection: { v1: { ServerReflection: grpc.ServiceClientConstructor } } };
    };
    const reflection = new rdef.grpc.reflection.v1.ServerReflection(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
      ServerReflectionInfo(): grpc.ClientDuplexStream<unknown, { listServicesResponse?: { service: Array<{ name: string }> } }>;
    };
    const call = reflection.ServerReflectionInfo();
    const answer = new Promise<string[]>((resolve, reject) => {
      call.on('data', (m) => resolve((m.listServicesResponse?.service ?? []).map((s: { name: string }) => s.name)));
      call.on('error', reject);
    });
    call.write({ listServices: '' });
    expect(await answer).toContain('verdict.v1.Scorer');
    call.end();
    reflection.close();
  });
});
