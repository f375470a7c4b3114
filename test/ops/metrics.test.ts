import * as grpc from '@grpc/grpc-js';
import { parseConfig } from '../../services/config';
import { ScorerClient } from '../../services/grpc/client';
import { Metrics } from '../../services/metrics';
import type { RunningServer } from '../../services/server';
import { FakeVllmServer } from '../fakes/fake-vllm-server';
import { startTestServer } from '../fixtures/server';
import { MODEL, QWEN3_TEMPLATE } from '../rlhf/harness';
import { sample } from '../fixtures/samples';
import { rawScore } from './helpers';

/** The value of one series in a Prometheus text exposition, or undefined when it is absent. */
function series(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

const group = (id: string, choices: string[], finish?: string[]) =>
  choices.map((c, i) =>
    sample({
      verifier: 'qa',
      groupId: id,
      responseTokens: 10,
      response: `\\boxed{${c}}`,
      label: { choice: 'C' },
      metadata: finish ? { finish_reason: finish[i]! } : {},
    }),
  );

describe('/metrics', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ workers: 1 });
  });
  afterAll(() => server.shutdown());
  const scrape = async () => (await fetch(`http://127.0.0.1:${server.httpPort}/metrics`)).text();

  it('has the default process and Node.js series', async () => {
    const text = await scrape();
    expect(series(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(series(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(series(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('per-verifier queue-wait histogram beside the scoring-time one', async () => {
    const reply = await rawScore(`127.0.0.1:${server.grpcPort}`, [...group('', ['C', 'A']), sample({ verifier: 'spin', label: { ops: 10 } })]);
    expect(reply.error).toBeNull();
    const text = await scrape();
    expect(series(text, 'verdict_sample_wait_seconds_count{verifier="qa"}')).toBe(2);
    expect(series(text, 'verdict_sample_wait_seconds_count{verifier="spin"}')).toBe(1);
    expect(series(text, 'verdict_sample_seconds_count{verifier="qa"}')).toBe(2);
  });

  it('group verdicts and truncation counts only for requests that ask for shaping, over gRPC and HTTP', async () => {
    const before = await scrape();
    expect(before).not.toMatch(/^verdict_groups_total\{/m);

    // Not shaped: nothing counted.
    await rawScore(`127.0.0.1:${server.grpcPort}`, group('g0', ['C', 'A'], ['stop', 'length']));
    // Shaped over gRPC: one group kept (mean 0.5), one all wrong, one all right (too easy).
    const shaped = await rawScore(
      `127.0.0.1:${server.grpcPort}`,
      [...group('kept', ['C', 'A'], ['stop', 'length']), ...group('fail', ['A', 'B'], ['length', 'length']), ...group('easy', ['C', 'C'])],
      new grpc.Metadata(),
      {},
      { minValid: 2 },
    );
    expect(shaped.error).toBeNull();
    // Shaped over HTTP: one more all-wrong group.
    const http = await fetch(`http://127.0.0.1:${server.httpPort}/v1/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ samples: group('h', ['A', 'B'], ['stop', 'stop']), groupOptions: { minValid: 2 } }),
    });
    expect(http.status).toBe(200);
    await http.json();

    const text = await scrape();
    expect(series(text, 'verdict_groups_total{kept="true",reason=""}')).toBe(1);
    expect(series(text, 'verdict_groups_total{kept="false",reason="all_fail"}')).toBe(2);
    expect(series(text, 'verdict_groups_total{kept="false",reason="too_easy"}')).toBe(1);
    expect(series(text, 'verdict_group_samples_finish_total{truncated="true"}')).toBe(3);
    expect(series(text, 'verdict_group_samples_finish_total{truncated="false"}')).toBe(3);
  });
});

describe('verdict_sandbox_* from a real sandbox', () => {
  it('slot starts, busy while a program runs and back to 0 after, a slot killed when its call is cancelled counted by reason', async () => {
    const server = await startTestServer({ workers: 1, config: parseConfig({ sandbox: { workers: 2, limits: { cpuMs: 5000 } } }) });
    const client = new ScorerClient(`127.0.0.1:${server.grpcPort}`);
    const scrape = async () => (await fetch(`http://127.0.0.1:${server.httpPort}/metrics`)).text();
    const code = (body: string) =>
      sample({ verifier: 'code', response: '```python\n' + body + '\n```', label: { mode: 'assert', tests: ['assert f() == 1'], fn_name: 'f' } });
    try {
      const scored = await client.score([code('def f():\n    return 1'), code('def f():\n    return 2')]);
      expect(scored.results.map((r) => [r.status, r.reward])).toEqual([['OK', 1], ['OK', 0]]);
      let text = await scrape();
      expect(series(text, 'verdict_sandbox_slot_starts_total')).toBeGreaterThanOrEqual(2);
      expect(series(text, 'verdict_sandbox_slots_busy')).toBe(0);

      // A program that never ends, its call cancelled while it runs: the slot is killed.
      const stream = client.scoreStream([code('def f():\n    while True: pass')]);
      stream.on('error', () => {});
      const until = async (what: (text: string) => boolean) => {
        for (let i = 0; i < 200 && !what(text); i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          text = await scrape();
        }
      };
      await until((t) => series(t, 'verdict_sandbox_slots_busy') === 1);
      expect(series(text, 'verdict_sandbox_slots_busy')).toBe(1);
      stream.cancel();
      // The kill and the replacement slot follow the cancel: wait for them, boundedly.
      await until((t) => series(t, 'verdict_sandbox_kills_total{reason="cancelled"}') !== undefined && series(t, 'verdict_sandbox_slots_busy') === 0);
      expect(series(text, 'verdict_sandbox_kills_total{reason="cancelled"}')).toBe(1);
      expect(series(text, 'verdict_sandbox_slots_busy')).toBe(0);
    } finally {
      client.close();
      await server.shutdown();
    }
  }, 60_000);
});

describe('reward-model request counts', () => {
  it('every HTTP attempt to an endpoint, by result, as it went on the wire (retries included)', async () => {
    const fake = new FakeVllmServer({ chatTemplate: QWEN3_TEMPLATE });
    const url = await fake.listen();
    const server = await startTestServer({
      workers: 1,
      config: parseConfig({ rewardModel: { endpoints: { skywork: { server: 'vllm', url, model: MODEL, input: 'text', chatTemplate: 'qwen3', maxBatch: 16 } } } }),
    });
    const client = new ScorerClient(`127.0.0.1:${server.grpcPort}`);
    try {
      fake.inject({ kind: 'status', status: 503, body: { error: { message: 'busy' } } });
      const batch = Array.from({ length: 4 }, (_, i) =>
        sample({ verifier: 'rlhf', response: `answer [[rm:${i}]]`, metadata: { messages: [{ role: 'user', content: 'Say something.' }] } }),
      );
      const { results } = await client.score(batch);
      expect(results.map((r) => [r.status, r.reward])).toEqual([['OK', 0], ['OK', 1], ['OK', 2], ['OK', 3]]);
      const text = await (await fetch(`http://127.0.0.1:${server.httpPort}/metrics`)).text();
      const ok = series(text, 'verdict_reward_model_requests_total{endpoint="skywork",result="2xx"}') ?? 0;
      expect(series(text, 'verdict_reward_model_requests_total{endpoint="skywork",result="5xx"}')).toBe(1);
      expect(ok + 1).toBe(fake.requests.length);
      expect(series(text, 'verdict_reward_model_request_seconds_count{endpoint="skywork"}')).toBe(fake.requests.length);
    } finally {
      client.close();
      await server.shutdown();
      await fake.close();
    }
  }, 60_000);
});

describe('sandbox hooks', () => {
  it('slots busy, starts and kills by reason, as the sandbox reports them', async () => {
    const metrics = new Metrics();
    metrics.sandbox.slotStarted();
    metrics.sandbox.slotStarted();
    metrics.sandbox.slotBusy(1);
    metrics.sandbox.slotBusy(1);
    metrics.sandbox.slotBusy(-1);
    metrics.sandbox.slotKilled('timeout');
    metrics.sandbox.slotKilled('timeout');
    metrics.sandbox.slotKilled('memory');
    const text = await metrics.registry.metrics();
    expect(series(text, 'verdict_sandbox_slot_starts_total')).toBe(2);
    expect(series(text, 'verdict_sandbox_slots_busy')).toBe(1);
    expect(series(text, 'verdict_sandbox_kills_total{reason="timeout"}')).toBe(2);
    expect(series(text, 'verdict_sandbox_kills_total{reason="memory"}')).toBe(1);
  });
});
