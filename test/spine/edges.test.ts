import { connect, type Socket } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import type { JsonObject } from '../../core/json';
import { ScorerClient } from '../../services/grpc/client';
import type { RunningServer } from '../../services/server';
import { MAX_DETAIL_CHARS } from '../../services/engine/details';
import { MAX_JSON_DEPTH } from '../../services/wire/depth';
import { sample } from '../fixtures/samples';
import { serveCli } from '../fixtures/cli';
import { startTestServer } from '../fixtures/server';

/** `{"a": {"a": … 1}}`, `levels` objects deep. */
function nested(levels: number): JsonObject {
  let value: JsonObject = { leaf: 1 };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

const good = (id: string) => sample({ id, verifier: 'qa', response: '\\boxed{C}', label: { choice: 'C' } });

/** Resolves when the server closes the socket; collects what it sent. */
function closed(socket: Socket): Promise<string> {
  let data = '';
  socket.on('data', (chunk) => (data += chunk.toString()));
  socket.on('error', () => undefined);
  return new Promise((resolve) => socket.on('close', () => resolve(data)));
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
  });
}

describe('the edges of the serving path (issue 13)', () => {
  let server: RunningServer;
  let client: ScorerClient;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer({
      maxMessageBytes: 8 * 1024 * 1024,
      httpLimits: { headersTimeoutMs: 300, requestTimeoutMs: 600, maxConnections: 40 },
    });
    client = new ScorerClient(`127.0.0.1:${server.grpcPort}`);
    base = `http://127.0.0.1:${server.httpPort}`;
  });
  afterAll(async () => {
    client.close();
    await server.shutdown();
  });

  const post = (body: string | Uint8Array, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${base}/v1/score`, { method: 'POST', headers, body });

  it('20 concurrent requests print no MaxListenersExceededWarning', async () => {
    // A real `verdict serve`: the warning goes to the server process's stderr.
    const served = await serveCli(['--workers', '1']);
    const exited = new Promise<number | null>((resolve) => served.child.on('exit', resolve));
    const other = new ScorerClient(`127.0.0.1:${served.grpcPort}`);
    // Long fuzzy matches keep every request in flight while the others arrive.
    const batch = Array.from({ length: 50 }, (_, i) =>
      sample({ id: `q${i}`, verifier: 'qa', response: `\\boxed{${'y'.repeat(2000)}}`, label: { answers: ['x'.repeat(2000)] } }),
    );
    const replies = await Promise.all([
      ...Array.from({ length: 10 }, () =>
        fetch(`http://127.0.0.1:${served.httpPort}/v1/score`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ samples: batch }) }).then((r) => r.status),
      ),
      ...Array.from({ length: 10 }, () => other.score(batch).then((r) => r.results.length)),
    ]);
    other.close();
    expect(replies).toEqual([...Array(10).fill(200), ...Array(10).fill(50)]);
    served.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(served.output()).not.toMatch(/MaxListenersExceededWarning/);
  });

  it('an empty body is 400 naming the problem; a UTF-8 byte-order mark is accepted', async () => {
    const empty = await post('');
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { message: string } }).error.message).toMatch(/^request: the body is empty/);
    const bom = await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ samples: [good('x')] }))]));
    expect(bom.status).toBe(200);
    const body = (await bom.json()) as { results: Array<{ id: string; status: string }> };
    expect(body.results).toEqual([expect.objectContaining({ id: 'x', status: 'STATUS_OK' })]);
  });

  it('over HTTP a label or metadata nested past the limit is INVALID for that sample only', async () => {
    const deep = { ...good('deep'), metadata: nested(3000) };
    const deepLabel = { ...good('deep-label'), label: nested(MAX_JSON_DEPTH + 1) };
    const atLimit = { ...good('at-limit'), metadata: nested(MAX_JSON_DEPTH) };
    const res = await post(JSON.stringify({ samples: [good('a'), deep, deepLabel, atLimit] }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: Array<{ id: string; status: string; reason: string }> };
    expect(body.results.map((r) => [r.id, r.status, r.reason])).toEqual([
      ['a', 'STATUS_OK', 'correct_choice'],
      ['deep', 'STATUS_INVALID', `metadata: nested deeper than ${MAX_JSON_DEPTH} levels`],
      ['deep-label', 'STATUS_INVALID', `label: nested deeper than ${MAX_JSON_DEPTH} levels`],
      ['at-limit', 'STATUS_OK', 'correct_choice'],
    ]);
  });

  it('over gRPC a Struct nested past the limit is INVALID for that sample only, naming the field', async () => {
    // 50 levels broke proto-loader's decoding for the whole request; the client's own encoder stops near 1,000.
    const batch = [good('a'), { ...good('deep'), label: nested(500) }, { ...good('mid'), metadata: nested(50) }, good('b')];
    const { results } = await client.score(batch);
    expect(results.map((r) => [r.id, r.status, r.reason])).toEqual([
      ['a', 'OK', 'correct_choice'],
      ['deep', 'INVALID', `label: nested deeper than ${MAX_JSON_DEPTH} levels`],
      ['mid', 'INVALID', `metadata: nested deeper than ${MAX_JSON_DEPTH} levels`],
      ['b', 'OK', 'correct_choice'],
    ]);
    const streamed = await client.scoreStreamAll(batch);
    expect(streamed.sort((x, y) => x.index - y.index)).toEqual(results);
  });

  it('bytes that are not a ScoreRequest are INVALID_ARGUMENT naming the request, not INTERNAL', async () => {
    const raw = new grpc.Client(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure());
    const error = await new Promise<grpc.ServiceError>((resolve) =>
      raw.makeUnaryRequest(
        '/verdict.v1.Scorer/Score',
        (bytes: Buffer) => bytes,
        (bytes: Buffer) => bytes,
        Buffer.from([0x0a, 0x7f, 0x01]), // field 1, length 127, one byte of body
        (e) => resolve(e as grpc.ServiceError),
      ),
    );
    raw.close();
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.details).toMatch(/^request: not a valid verdict\.v1\.ScoreRequest/);
  });

  it('details echo at most MAX_DETAIL_CHARS of a long string and say so; the reply fits where the echo would not', async () => {
    // 7 × 512 KiB answers: the request fits in 8 MiB; the full echo (extracted, normalized, reference) would be 10.5 MiB.
    const answer = 'x'.repeat(512 * 1024);
    const batch = Array.from({ length: 7 }, (_, i) =>
      sample({ id: `big${i}`, verifier: 'qa', response: `\\boxed{${answer}}`, label: { answers: [answer] } }),
    );
    const { results } = await client.score(batch);
    expect(results.map((r) => [r.status, r.reward])).toEqual(batch.map(() => ['OK', 1]));
    const extracted = results[0]!.details.extracted as string;
    expect(extracted.length).toBeLessThan(MAX_DETAIL_CHARS + 64);
    expect(extracted.startsWith('x'.repeat(MAX_DETAIL_CHARS))).toBe(true);
    expect(extracted).toMatch(/truncated: 524288 characters in all/);
  });

  it('a reply over the message limit answers what fits and marks the rest ABORTED "response_too_large"', async () => {
    // Each result echoes 1,000 strings of 2,000 characters (~2 MB): 10 of them cannot fit in 8 MiB.
    const batch = Array.from({ length: 10 }, (_, i) => sample({ id: `w${i}`, verifier: 'wide', label: { keys: 1000, chars: 2000 } }));
    // ScoreStreamBatches cuts its messages to the limit too: the ten ~2 MB results cannot share one.
    const batches = await client.scoreStreamBatchesAll(batch);
    expect(batches.messages).toBeGreaterThanOrEqual(3);
    for (const results of [(await client.score(batch)).results, await client.scoreStreamAll(batch), batches.results]) {
      expect(results).toHaveLength(10);
      const ok = results.filter((r) => r.status === 'OK');
      const tooLarge = results.filter((r) => r.status === 'ABORTED');
      expect(ok.length + tooLarge.length).toBe(10);
      for (const r of tooLarge) expect(r).toMatchObject({ reason: 'response_too_large', details: { limitBytes: 8 * 1024 * 1024 } });
      for (const r of ok) expect(Object.keys(r.details)).toHaveLength(1000);
    }
    const unary = (await client.score(batch)).results;
    expect(unary.filter((r) => r.status === 'OK').length).toBeGreaterThan(0);
    expect(unary.filter((r) => r.status === 'ABORTED').length).toBeGreaterThan(0);
  });

  it('a large batch under a tight deadline always answers, ABORTED "deadline" for the samples not reached', async () => {
    // Minutes of work on two threads; each reply of 8,192 results must still be built and sent in time.
    // The first call also teaches the server what cutting a batch short costs on this (loaded) machine.
    const batch = Array.from({ length: 8192 }, (_, i) => sample({ id: `s${i}`, verifier: 'spin', label: { ops: 3_000_000 } }));
    for (const deadlineMs of [10_000, 3000]) {
      const { results } = await client.score(batch, { deadlineMs });
      expect(results).toHaveLength(batch.length);
      expect(results.filter((r) => r.status === 'ABORTED').every((r) => r.reason === 'deadline')).toBe(true);
      expect(results.some((r) => r.status === 'ABORTED')).toBe(true);
    }
  });

  it('HTTP: stalled headers and stalled bodies are closed; connections past the cap are refused', async () => {
    const headers = await open(server.httpPort!);
    const headersClosed = closed(headers);
    headers.write('POST /v1/score HTTP/1.1\r\nHost: x\r\n');
    const body = await open(server.httpPort!);
    const bodyClosed = closed(body);
    body.write('POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"samples": [');
    expect(await headersClosed).toMatch(/^(HTTP\/1\.1 408|)/);
    expect(await bodyClosed).toMatch(/^(HTTP\/1\.1 408|)/);

    // The request timeout covers receiving a request, not scoring it: a batch that scores for longer still answers.
    const slow = await post(JSON.stringify({ samples: [sample({ verifier: 'sleep', label: { ms: 1500 } })] }));
    expect(slow.status).toBe(200);
    expect(((await slow.json()) as { results: Array<{ status: string }> }).results[0]!.status).toBe('STATUS_OK');

    const held = await Promise.all(Array.from({ length: 40 }, () => open(server.httpPort!)));
    const extra = await open(server.httpPort!);
    const extraClosed = closed(extra);
    extra.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await extraClosed).toBe('');
    for (const socket of held) socket.destroy();
  });
});
