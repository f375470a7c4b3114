import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { createServices } from '../../services/bootstrap';
import { ConfigError, parseConfig } from '../../services/config';
import { packageRoot } from '../../services/paths';

/** The ConfigError problems `run` throws (none when it does not throw). */
async function problems(run: () => unknown): Promise<readonly string[]> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

const judgeEndpoint = { url: 'http://127.0.0.1:9/v1', model: 'm' };
const rmEndpoint = { server: 'vllm', url: 'http://127.0.0.1:9', model: 'm' };

describe('config errors', () => {
  it('name the replacement of every key of the older vocabularies', async () => {
    const found = await problems(() =>
      parseConfig(
        {
          judge: { endpoints: { search: { baseUrl: 'http://judge:8000/v1', model: 'm' } } },
          rewardModel: { endpoints: { rm: { ...rmEndpoint, retries: 3, timeoutMs: 5, concurrency: 2, backoffMs: 1, backoffMaxMs: 2 } } },
        },
        'verdict.yaml',
      ),
    );
    expect(found).toEqual([
      'verdict.yaml.judge.endpoints.search.baseUrl: renamed: use url',
      'verdict.yaml.rewardModel.endpoints.rm.concurrency: renamed: use maxConcurrency',
      'verdict.yaml.rewardModel.endpoints.rm.timeoutMs: renamed: use attemptTimeoutMs',
      'verdict.yaml.rewardModel.endpoints.rm.retries: renamed: use maxAttempts (which counts the first attempt too: retries + 1)',
      'verdict.yaml.rewardModel.endpoints.rm.backoffMs: renamed: use backoff.initialMs',
      'verdict.yaml.rewardModel.endpoints.rm.backoffMaxMs: renamed: use backoff.maxMs',
    ]);
  });

  it('report every problem at once, one line each in one style', async () => {
    const run = () =>
      parseConfig(
        {
          judge: { endpoints: { search: { ...judgeEndpoint, maxConcurrency: 0 } } },
          sandbox: { workers: 'two', python: '' },
          nonsense: 1,
        },
        'verdict.yaml',
      );
    expect(await problems(run)).toEqual([
      'verdict.yaml.judge.endpoints.search.maxConcurrency: Too small: expected number to be >=1',
      'verdict.yaml.sandbox.workers: expected "auto" or number, received string',
      'verdict.yaml.sandbox.python: Too small: expected string to have >=1 characters',
      'verdict.yaml.nonsense: unknown field',
    ]);
    expect(run).toThrow(/^4 problems:\n {2}verdict\.yaml\.judge/);
  });

  it('report start-up problems of every service together, under the config file', async () => {
    const config = parseConfig(
      {
        judge: { endpoints: { search: { model: 'm' } } },
        rewardModel: { endpoints: { rm: { ...rmEndpoint, input: 'text', chatTemplate: '/nonexistent/t.jinja' } } },
      },
      'verdict.yaml',
    );
    const found = await problems(() => createServices(config, { env: {} }));
    expect(found).toHaveLength(2);
    expect(found[0]).toBe('verdict.yaml.judge.endpoints.search.url: required (or set VERDICT_JUDGE_SEARCH_URL)');
    expect(found[1]).toMatch(/^verdict\.yaml\.rewardModel\.endpoints\.rm\.chatTemplate: cannot read \/nonexistent\/t\.jinja/);
  });

  it('say when the judge URL is still set under its old environment variable', async () => {
    const config = parseConfig({ judge: { endpoints: { search: { model: 'm' } } } });
    const found = await problems(() => createServices(config, { env: { VERDICT_JUDGE_SEARCH_BASE_URL: 'http://judge:8000/v1' } }));
    expect(found).toEqual([
      'config.judge.endpoints.search.url: required (or set VERDICT_JUDGE_SEARCH_URL) (VERDICT_JUDGE_SEARCH_BASE_URL is set: renamed to VERDICT_JUDGE_SEARCH_URL)',
    ]);
  });
});

describe('judge cachePath', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'verdict-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the folders the cache file is in', async () => {
    const cachePath = path.join(dir, 'var', 'lib', 'judge.sqlite');
    const set = await createServices(parseConfig({ judge: { cachePath, endpoints: { search: judgeEndpoint } } }));
    await set.close();
    expect(existsSync(cachePath)).toBe(true);
  });

  it('names the key when the file still cannot be opened', async () => {
    const blocker = path.join(dir, 'a-file');
    writeFileSync(blocker, '');
    const config = parseConfig({ judge: { cachePath: path.join(blocker, 'judge.sqlite'), endpoints: { search: judgeEndpoint } } }, 'v.yaml');
    const found = await problems(() => createServices(config));
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^v\.yaml\.judge\.cachePath: cannot open .*a-file\/judge\.sqlite/);
  });
});

describe('examples/verdict.yaml', () => {
  const text = readFileSync(path.join(packageRoot(), 'examples', 'verdict.yaml'), 'utf8');

  it('is a valid config as shipped, and with its commented endpoints switched on', () => {
    expect(parseConfig(parseYaml(text)).sandbox?.workers).toBe('auto');
    const uncommented = text.replace(/^# (?=(?:judge|rewardModel):| {2})/gm, '').replace(/^#.*$/gm, '');
    const config = parseConfig(parseYaml(uncommented));
    expect(config.judge?.endpoints['search']?.url).toBe('http://judge:8000/v1');
    expect(config.rewardModel?.endpoints['skywork']?.maxAttempts).toBe(4);
  });
});
