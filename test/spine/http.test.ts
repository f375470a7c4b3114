import type { RunningServer } from '../../services/server';
import { resultToJson } from '../../services/wire/json';
import { ScorerClient } from '../../services/grpc/client';
import { mixedQaBatch, sample } from '../fixtures/samples';
import { startTestServer } from '../fixtures/server';

describe('HTTP gateway', () => {
  let server: RunningServer;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer({ limits: { maxPendingSamples: 100, maxBatchSamples: 1000 } });
    base = `http://127.0.0.1:${server.httpPort}`;
  });
  afterAll(() => server.shutdown());

  const post = (body: string) =>
    fetch(`${base}/v1/score`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('POST /v1/score answers exactly as the gRPC Score call', async () => {
    const batch = mixedQaBatch();
    const res = await post(JSON.stringify({ samples: batch }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: unknown[]; groups: unknown[] };
    const client = new ScorerClient(`127.0.0.1:${server.grpcPort}`);
    const viaGrpc = await client.score(batch);
    client.close();
    expect(body.results).toEqual(viaGrpc.results.map(resultToJson));
    expect(body.groups).toEqual(viaGrpc.groups);
    expect(body.results[3]).toEqual({
      id: 'c',
      index: 3,
      status: 'STATUS_INVALID',
      reason: 'label.answers[0]: expected a string',
      verifier: 'qa',
      verifierVersion: '1.4.0',
      details: {},
    });
  });

  it('writes rewards and mean rewards as JSON floats (1.0, 0.0), which Python reads as float, not int', async () => {
    const batch = [
      sample({ id: 'right', verifier: 'qa', groupId: 'g', response: '\\boxed{A}', label: { choice: 'A' } }),
      sample({ id: 'wrong', verifier: 'qa', groupId: 'g', response: '\\boxed{B}', label: { choice: 'A' } }),
    ];
    const text = await (await post(JSON.stringify({ samples: batch }))).text();
    expect(text).toContain('"reward":1.0');
    expect(text).toContain('"reward":0.0');
    expect(text).toContain('"meanReward":0.5');
    expect(text).not.toMatch(/"(reward|meanReward)":-?\d+[,}]/);
    // The text is still plain JSON with the same values.
    const body = JSON.parse(text) as { results: Array<{ reward: number }> };
    expect(body.results.map((r) => r.reward)).toEqual([1, 0]);
  });

  it('reads a body in the charset its content type names, and a UTF-8 body after a byte-order mark', async () => {
    const batch = [sample({ id: 'é-1', verifier: 'qa', response: 'réponse \\boxed{C}', label: { choice: 'C' } })];
    const text = JSON.stringify({ samples: batch });
    const replies = [
      await fetch(`${base}/v1/score`, { method: 'POST', headers: { 'content-type': 'application/json; charset=ISO-8859-1' }, body: Buffer.from(text, 'latin1') }),
      await post(`\uFEFF${text}`),
    ];
    for (const res of replies) {
      expect(res.status).toBe(200);
      const body = (await res.json()) as { results: Array<{ id: string; reward: number }> };
      expect(body.results.map((r) => [r.id, r.reward])).toEqual([['é-1', 1]]);
    }
  });

  it('accepts the proto field names (group_id, response_tokens) as proto3 JSON parsers do', async () => {
    const res = await post(JSON.stringify({ samples: [{ id: 'x', verifier: 'qa', response: '\\boxed{A}', label: { choice: 'A' }, group_id: 'g', response_tokens: 12 }] }));
    const body = (await res.json()) as { groups: Array<{ groupId: string }> };
    expect(body.groups[0]!.groupId).toBe('g');
  });

  it.each([
    ['not json', '{"samples": [', /^request: not valid JSON/],
    ['not an object', '[1,2]', /^request: expected a JSON object/],
    ['samples not an array', '{"samples": 3}', /^samples: expected an array/],
    ['a field of the wrong type', '{"samples": [{"verifier": "qa", "response": 5}]}', /^samples\[0\]\.response: expected string, received number/],
    ['a label that is not an object', '{"samples": [{"verifier": "qa", "label": "C"}]}', /^samples\[0\]\.label: /],
    ['an unknown request field', '{"sample": []}', /^request\.sample: unknown field/],
  ])('rejects a malformed request (%s) with 400 INVALID_ARGUMENT naming the field', async (_what, body, message) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    const error = ((await res.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(message);
  });

  it('answers 429 with Retry-After past the queue limit, and 413 past the batch limit', async () => {
    const spin = (n: number, ops: number) => Array.from({ length: n }, () => sample({ verifier: 'spin', label: { ops } }));
    const busy = post(JSON.stringify({ samples: spin(90, 2_000_000) }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refused = await post(JSON.stringify({ samples: spin(20, 1) }));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await busy).status).toBe(200);
    const tooLarge = await post(JSON.stringify({ samples: spin(1001, 1) }));
    expect(tooLarge.status).toBe(413);
    expect(((await tooLarge.json()) as { error: { message: string } }).error.message).toMatch(/1001 samples exceed the limit of 1000/);
  });

  it('serves /healthz, /v1/verifiers and Prometheus /metrics', async () => {
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'SERVING' });
    const verifiers = (await (await fetch(`${base}/v1/verifiers`)).json()) as { verifiers: Array<{ name: string; labelSchema: unknown }> };
    expect(verifiers.verifiers.map((v) => v.name)).toContain('qa');
    // The label's JSON Schema as an object, as `verdict verifiers --json` prints it.
    expect(verifiers.verifiers.find((v) => v.name === 'qa')!.labelSchema).toMatchObject({ type: 'object', properties: expect.objectContaining({ choice: expect.anything() }) });
    await post(JSON.stringify({ samples: mixedQaBatch() }));
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/verdict_samples_total\{verifier="qa",status="OK"\} \d+/);
    expect(metrics).toMatch(/verdict_samples_total\{verifier="\(unknown\)",status="INVALID"\} \d+/);
    expect(metrics).toMatch(/verdict_sample_seconds_bucket\{le="0.001",verifier="qa"\}/);
    expect(metrics).toMatch(/verdict_pending_samples 0/);
    expect(metrics).toMatch(/verdict_requests_refused_total\{reason="overloaded"\} 1/);
    // The reward histogram holds exactly the OK qa samples, each reward 0 or 1 (none in between).
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}+.]/g, '\\$&')} (\\S+)$`, 'm').exec(metrics)?.[1]);
    const ok = value('verdict_samples_total{verifier="qa",status="OK"}');
    expect(ok).toBeGreaterThan(0);
    expect(value('verdict_reward_count{verifier="qa"}')).toBe(ok);
    expect(value('verdict_reward_bucket{le="+Inf",verifier="qa"}')).toBe(ok);
    const zeros = value('verdict_reward_bucket{le="0",verifier="qa"}');
    expect(value('verdict_reward_bucket{le="0.99",verifier="qa"}')).toBe(zeros);
    expect(value('verdict_reward_sum{verifier="qa"}')).toBe(value('verdict_reward_bucket{le="1",verifier="qa"}') - zeros);
    expect(zeros).toBeGreaterThan(0);
    expect(value('verdict_reward_sum{verifier="qa"}')).toBeGreaterThan(0);
  });
});
