import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli } from '../fixtures/cli';
import { sample } from '../fixtures/samples';

const dir = mkdtempSync(path.join(tmpdir(), 'verdict-groups-cli-'));

const qa = (id: string, groupId: string, response: string, responseTokens: number) =>
  JSON.stringify(sample({ id, verifier: 'qa', groupId, response, responseTokens, label: { choice: 'C' } }));

describe('verdict score with group options', () => {
  it('keeps each group in one batch past --batch-size, shapes it, and writes one summary line per group', async () => {
    const input = path.join(dir, 'in.jsonl');
    const output = path.join(dir, 'out.jsonl');
    const groups = path.join(dir, 'groups.jsonl');
    writeFileSync(input, [qa('a', 'g1', '\\boxed{C}', 100), qa('b', 'g1', '\\boxed{C}', 1100), qa('c', 'g1', '\\boxed{B}', 50), qa('d', 'g2', '\\boxed{B}', 10), qa('e', 'g2', '\\boxed{B}', 10)].join('\n') + '\n');
    const run = await runCli([
      'score', input, '-o', output, '--workers', '0', '--batch-size', '2', '--max-invalid', '0',
      '--group-options', JSON.stringify({ lengthPenalty: true, maxLength: 1100, advantage: 'mean' }), '--groups', groups,
    ]);
    expect(run.code).toBe(0);
    const results = readFileSync(output, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(results.map((r) => [r.id, r.reward, r.advantage])).toEqual([
      ['a', 1, 0.5],
      ['b', 0.5, 0],
      ['c', 0, -0.5],
      ['d', 0, 0],
      ['e', 0, 0],
    ]);
    const summaries = readFileSync(groups, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(summaries.map((g) => [g.groupId, g.size, g.keep, g.keepReason])).toEqual([
      ['g1', 3, true, ''],
      ['g2', 2, false, 'all_fail'],
    ]);
    expect(run.stdout).toMatch(/groups: 2, kept 1, dropped 1 all_fail/);
  });

  it('refuses a group whose lines are not contiguous rather than summarize half of it', async () => {
    const input = path.join(dir, 'split.jsonl');
    writeFileSync(input, [qa('a', 'g1', '\\boxed{C}', 1), qa('b', 'g2', '\\boxed{C}', 1), qa('c', 'g1', '\\boxed{C}', 1)].join('\n') + '\n');
    const run = await runCli(['score', input, '-o', path.join(dir, 'split.out.jsonl'), '--workers', '0', '--batch-size', '1', '--groups', path.join(dir, 'split.groups.jsonl')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch('line 3: group "g1" is not contiguous: its earlier lines were already scored (sort the file by group_id)');
  });
});
