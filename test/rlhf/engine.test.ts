import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Sample } from '../../core/sample';
import { createServices, type ServiceSet } from '../../services/bootstrap';
import { ConfigError, parseConfig } from '../../services/config';
import { Engine } from '../../services/engine/engine';
import { packageRoot } from '../../services/paths';
import { InlineExecutor } from '../../services/pool/executor';
import { createRegistry } from '../../verifiers';
import { FakeVllmServer } from '../fakes/fake-vllm-server';
import { MODEL, QWEN3_TEMPLATE } from './harness';

describe('rlhf through bootstrap and the engine', () => {
  let server: FakeVllmServer;
  let set: ServiceSet;
  let engine: Engine;

  beforeAll(async () => {
    server = new FakeVllmServer({ chatTemplate: QWEN3_TEMPLATE });
    const url = await server.listen();
    const config = parseConfig({
      rewardModel: { endpoints: { skywork: { server: 'vllm', url, model: MODEL, input: 'text', chatTemplate: 'qwen3', maxBatch: 16 } } },
    });
    set = await createServices(config);
    const registry = createRegistry();
    engine = new Engine({ registry, executor: new InlineExecutor(registry), services: set.services });
  });
  afterAll(async () => {
    await engine.close();
    await set.close();
    await server.close();
  });

  const sample = (i: number, label: Sample['label'] = {}): Sample => ({
    id: `s${i}`,
    verifier: 'rlhf',
    response: `answer ${i} [[rm:${i - 32}]]`,
    label,
    groupId: 'g',
    responseTokens: 10 * (i + 1),
    metadata: { messages: [{ role: 'user', content: 'Say something.' }] },
  });

  it('gives every sample one result, batched up to maxBatch', async () => {
    const batch = Array.from({ length: 64 }, (_, i) => sample(i, { length_penalty: { l0: 100, lmax: 500, p_max: 0.5 } }));
    batch.push(sample(64, { length_penalty: { l0: 5, lmax: 1, p_max: 0.5 } }));
    const results = await engine.score(batch);
    expect(results).toHaveLength(65);
    expect(results[64]).toMatchObject({ status: 'INVALID', reason: 'label.length_penalty.lmax: must be greater than l0' });
    for (let i = 0; i < 64; i++) {
      const raw = i - 32;
      const p = 0.5 * Math.min(1, Math.max(0, (10 * (i + 1) - 100) / 400));
      expect(results[i]).toMatchObject({ status: 'OK', reward: raw > 0 ? raw * (1 - p) : raw });
    }
    const sizes = server.requests.map((r) => (r.body as { input: string[] }).input.length);
    expect(Math.max(...sizes)).toBe(16);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(64);
  });
});

describe('rewardModel config', () => {
  const endpoint = { server: 'vllm', url: 'http://127.0.0.1:8000', model: MODEL };
  const error = (rewardModel: unknown) => {
    try {
      parseConfig({ rewardModel }, 'rm.yaml');
    } catch (e) {
      if (e instanceof ConfigError) return e.message;
      throw e;
    }
    return 'no error';
  };

  it('fills the defaults: messages to vLLM /classify, current API, one conversation per request', () => {
    const config = parseConfig({ rewardModel: { endpoints: { rm: endpoint } } });
    expect(config.rewardModel?.endpoints['rm']).toMatchObject({
      api: 'current',
      route: 'classify',
      input: 'messages',
      maxBatch: 1,
      maxConcurrency: 4,
      stripThink: true,
    });
  });

  it('accepts the example config of verifiers/rlhf/README.md', async () => {
    const readme = readFileSync(path.join(packageRoot(), 'verifiers', 'rlhf', 'README.md'), 'utf8');
    const yaml = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    const config = parseConfig(parseYaml(yaml ?? ''));
    const set = await createServices(config);
    expect(set.services.rewardModels?.names()).toEqual(['skywork', 'skywork-vllm']);
    await set.close();
  });

  it('names the failing key', () => {
    expect(error({ endpoints: { rm: { ...endpoint, maxBatch: 'many' } } })).toMatch(/^rm\.yaml\.rewardModel\.endpoints\.rm\.maxBatch: /);
    expect(error({ endpoints: { rm: { ...endpoint, maxBatch: 8 } } })).toBe(
      'rm.yaml.rewardModel.endpoints.rm.maxBatch: must be 1 with input "messages" (one conversation per request)',
    );
    expect(error({ endpoints: { rm: { ...endpoint, server: 'sglang', chatTemplate: 'qwen3', input: 'messages' } } })).toBe(
      'rm.yaml.rewardModel.endpoints.rm.input: unknown field',
    );
    expect(error({ endpoints: { rm: { ...endpoint, input: 'text' } } })).toBe(
      'rm.yaml.rewardModel.endpoints.rm.chatTemplate: required when the server takes text',
    );
    expect(error({ endpoints: { rm: { ...endpoint, api: 'v0.8' } } })).toMatch(/^rm\.yaml\.rewardModel\.endpoints\.rm\.api: /);
    expect(error({ endpoints: { rm: { ...endpoint, server: 'tgi' } } })).toMatch(/^rm\.yaml\.rewardModel\.endpoints\.rm\.server: /);
    expect(error({ endpoints: { rm: { ...endpoint, retry: 3 } } })).toBe('rm.yaml.rewardModel.endpoints.rm.retry: unknown field');
    expect(error({ endpoints: { rm: endpoint }, default: 'other' })).toBe('rm.yaml.rewardModel.default: no endpoint named "other"');
    expect(error({ endpoints: {} })).toMatch(/^rm\.yaml\.rewardModel\.endpoints: at least one endpoint/);
  });

  it('fails at start-up, naming the key, when a chat template cannot be read', async () => {
    const config = parseConfig({ rewardModel: { endpoints: { rm: { ...endpoint, input: 'text', chatTemplate: '/nonexistent/t.jinja' } } } });
    await expect(createServices(config)).rejects.toThrow(
      /^config\.rewardModel\.endpoints\.rm\.chatTemplate: cannot read \/nonexistent\/t\.jinja/,
    );
  });
});
