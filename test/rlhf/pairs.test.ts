import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { program } from '../../cli/main';
import { formatPairsReport, runPairs, scorePairs } from '../../cli/pairs';
import { parseConfig } from '../../services/config';
import { FakeSglangServer } from '../fakes/fake-sglang-server';
import { FakeVllmServer } from '../fakes/fake-vllm-server';
import { endpoint, MODEL } from './harness';

const PAIRS = [
  { prompt: 'Tell me a joke.', chosen: 'A pun [[rm:3]]', rejected: 'No. [[rm:-1]]' },
  { prompt: [{ role: 'user', content: 'Hi' }], chosen: 'Hello! [[rm:2]]', rejected: '<think>be rude [[rm:9]]</think>Go away [[rm:4]]' },
  {
    chosen: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hey [[rm:1]]' }],
    rejected: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hey [[rm:1]]' }],
  },
];

describe('preference pairs', () => {
  let server: FakeSglangServer;
  let url: string;
  beforeAll(async () => {
    server = new FakeSglangServer();
    url = await server.listen();
  });
  afterAll(() => server.close());

  it('reports mean chosen, mean rejected and accuracy (a tie is not a win), scoring answers after </think>', async () => {
    const lines = PAIRS.map((p) => JSON.stringify(p));
    const report = await scorePairs(lines, endpoint({ server: 'sglang', url }));
    expect(report).toEqual({
      pairs: 3,
      scored: 3,
      failed: 0,
      meanChosen: 2,
      meanRejected: 4 / 3,
      accuracy: 1 / 3,
      failures: [],
    });
    expect(formatPairsReport(report)).toBe(
      [
        'pairs:         3 (3 scored, 0 failed)',
        'mean chosen:   2.0000',
        'mean rejected: 1.3333',
        'accuracy:      0.3333 (chosen > rejected)',
      ].join('\n'),
    );
  });

  it('counts bad lines and unscored sides as failed, naming the line, and leaves them out of the means', async () => {
    const vllm = new FakeVllmServer({ maxInputChars: 120 });
    const rm = endpoint({ server: 'vllm', url: await vllm.listen(), input: 'text', maxBatch: 4 });
    const lines = [
      JSON.stringify(PAIRS[0]),
      '{not json',
      JSON.stringify({ chosen: 'a', rejected: 'b' }),
      '',
      JSON.stringify({ prompt: 'q', chosen: 'fine [[rm:1]]', rejected: 'x'.repeat(200) }),
    ];
    const report = await scorePairs(lines, rm, 2);
    await vllm.close();
    expect(report).toMatchObject({ pairs: 4, scored: 1, failed: 3, meanChosen: 3, meanRejected: -1, accuracy: 1 });
    expect(report.failures.map((f) => f.line)).toEqual([2, 3, 5]);
    expect(report.failures[1]!.reason).toBe('pair.prompt: required when chosen or rejected is a string');
    expect(report.failures[2]!.reason).toMatch(/^rejected: reward_model_rejected: HTTP 400: This model's maximum context length/);
  });

  it('runs from a config and a JSONL file, as `verdict score --pairs` does', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'verdict-pairs-'));
    try {
      const file = path.join(dir, 'pairs.jsonl');
      writeFileSync(file, PAIRS.map((p) => JSON.stringify(p)).join('\n') + '\n');
      const config = parseConfig({
        rewardModel: { endpoints: { skywork: { server: 'sglang', url, model: MODEL, chatTemplate: 'qwen3' } } },
      });
      expect(await runPairs({ input: file, config })).toMatchObject({ scored: 3, accuracy: 1 / 3 });
      await expect(runPairs({ input: file, config, endpoint: 'other' })).rejects.toThrow(
        '--endpoint: no reward-model endpoint "other" (known: skywork)',
      );
      await expect(runPairs({ input: file, config: parseConfig({}) })).rejects.toThrow('rewardModel: required');

      const configFile = path.join(dir, 'verdict.yaml');
      writeFileSync(
        configFile,
        `rewardModel:\n  endpoints:\n    skywork:\n      server: sglang\n      url: ${url}\n      model: ${MODEL}\n      chatTemplate: qwen3\n`,
      );
      let printed = '';
      const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
        printed += String(chunk);
        return true;
      });
      try {
        await program().parseAsync(['node', 'verdict', 'score', '--pairs', file, '--config', configFile]);
      } finally {
        write.mockRestore();
      }
      expect(printed).toContain('accuracy:      0.3333 (chosen > rejected)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
