import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry as MetricsRegistry } from 'prom-client';
import type { Sample } from '../../core/sample';
import { createServices, type ServiceSet } from '../../services/bootstrap';
import { parseConfig } from '../../services/config';
import { Engine } from '../../services/engine/engine';
import { InlineExecutor } from '../../services/pool/executor';
import { createRegistry } from '../../verifiers';
import { FakeOpenAIServer } from '../fakes/fake-openai-server';
import { counterValue } from '../judge/harness';

/** The search verifier through the engine, with the judge built by bootstrap from a config. */
describe('search through the engine and bootstrap', () => {
  let server: FakeOpenAIServer;
  let set: ServiceSet;
  let engine: Engine;
  let dir: string;
  let metrics: MetricsRegistry;

  beforeEach(async () => {
    server = new FakeOpenAIServer();
    const baseUrl = await server.start();
    dir = mkdtempSync(join(tmpdir(), 'verdict-search-'));
    const config = parseConfig({
      judge: {
        cachePath: join(dir, 'judge.sqlite'),
        endpoints: { search: { maxConcurrency: 2, backoff: { initialMs: 5, maxMs: 10, jitter: 0.25 } } },
      },
    });
    process.env['VERDICT_JUDGE_SEARCH_URL'] = baseUrl;
    process.env['VERDICT_JUDGE_SEARCH_MODEL'] = server.model;
    metrics = new MetricsRegistry();
    set = await createServices(config, { metricsRegistry: metrics });
    const registry = createRegistry();
    engine = new Engine({ registry, executor: new InlineExecutor(registry), services: set.services });
  });

  afterEach(async () => {
    await engine.close();
    await set.close();
    await server.close();
    delete process.env['VERDICT_JUDGE_SEARCH_URL'];
    delete process.env['VERDICT_JUDGE_SEARCH_MODEL'];
    rmSync(dir, { recursive: true, force: true });
  });

  const sample = (id: string, response: string, successful = 3): Sample => ({
    id,
    verifier: 'search',
    response,
    label: { question: 'What is the capital of France?', answer: 'Paris' },
    groupId: 'g',
    responseTokens: 0,
    metadata: { tool_calls: { total: successful, successful, malformed: 0 } },
  });

  it('scores a group: one judge call per distinct answer, the limit held, every sample one result', async () => {
    const batch = [
      ...Array.from({ length: 6 }, (_, i) => sample(`p${i}`, 'So: \\boxed{Paris}')),
      ...Array.from({ length: 4 }, (_, i) => sample(`r${i}`, '\\boxed{Rome}')),
      sample('lyon', '\\boxed{Lyon}'),
      sample('none', 'no idea'),
      sample('lazy', '\\boxed{Paris}', 1),
    ];
    server.replyDelayMs = 20;
    const results = await engine.score(batch);
    expect(results.map((r) => [r.id, r.status, r.reward])).toEqual([
      ...Array.from({ length: 6 }, (_, i) => [`p${i}`, 'OK', 1]),
      ...Array.from({ length: 4 }, (_, i) => [`r${i}`, 'OK', 0]),
      ['lyon', 'OK', 0],
      ['none', 'OK', 0],
      ['lazy', 'OK', 0],
    ]);
    expect(server.calls).toBe(3);
    expect(server.peakConcurrency).toBe(2);
    expect(await counterValue(metrics, 'verdict_judge_requests_total', { endpoint: 'search', result: 'ok' })).toBe(3);

    // Re-scoring pays nothing and gives the same rewards.
    const again = await engine.score(batch);
    expect(again.map((r) => r.reward)).toEqual(results.map((r) => r.reward));
    expect(server.calls).toBe(3);
  });

  it('answers ABORTED with the engine reason when the batch is cancelled mid-judge', async () => {
    server.replyDelayMs = 5_000;
    const controller = new AbortController();
    const pending = engine.score([sample('a', '\\boxed{Paris}')], { signal: controller.signal });
    setTimeout(() => controller.abort('deadline'), 50);
    const [result] = await pending;
    expect(result).toMatchObject({ status: 'ABORTED' });
    expect(result?.reward).toBeUndefined();
  });
});
