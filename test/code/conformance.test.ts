import { readFileSync } from 'node:fs';
import type { JsonObject } from '../../core/json';
import type { Sandbox } from '../../services/sandbox';
import { code } from '../../verifiers/code';
import { scoreAsync, sharedPath, startSandbox } from '../sandbox/helpers';

/** ../shared/conformance/code/: labelled responses with the reward every peer-majority grader gives. */
interface Row {
  id: string;
  mode: 'assert' | 'stdio';
  response: string;
  label: JsonObject;
  expected_reward: number;
}

function rows(file: string): Row[] {
  return readFileSync(sharedPath('conformance', 'code', file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Row);
}

const ALL = [...rows('assert.jsonl'), ...rows('stdio.jsonl'), ...rows('policy.jsonl')];

describe('code: conformance corpus', () => {
  let sandbox: Sandbox;
  // 200 ms of CPU per test: the corpus's solutions need well under that, and its 101 infinite loops
  // each cost one limit, which keeps this file to seconds.
  beforeAll(async () => {
    sandbox = await startSandbox({ limits: { cpuMs: 200 } });
  });
  afterAll(() => sandbox.close());

  it('agrees with the expected reward on every row (assert, stdio, policy)', async () => {
    const outcomes = await Promise.all(
      ALL.map((row) => scoreAsync(code, row.response, { mode: row.mode, ...row.label }, { sandbox })),
    );
    const disagreements = ALL.flatMap((row, i) => {
      const outcome = outcomes[i]!;
      const reward = outcome.status === 'OK' ? outcome.reward : null;
      return reward === row.expected_reward ? [] : [{ id: row.id, expected: row.expected_reward, outcome }];
    });
    expect(ALL.length).toBe(842);
    expect(disagreements).toEqual([]);
  }, 240_000);
});
