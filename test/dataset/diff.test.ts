import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunningServer } from '../../services/server';
import { startTestServer } from '../fixtures/server';
import { TEST_VERIFIERS } from '../fixtures/test-registry';
import { jsonl, runCli, type Row } from './helpers';
import { STRICTER_QA_VERIFIERS } from './stricter-qa-registry';

const dir = mkdtempSync(path.join(tmpdir(), 'verdict-diff-'));
const file = (name: string) => path.join(dir, name);

describe('verdict diff and --compare', () => {
  let before: RunningServer;
  let after: RunningServer;

  // Rows 1–4 answer with "Answer: X" (the stricter qa gives 0), rows 5–8 with \boxed{X}.
  const rows: Row[] = Array.from({ length: 8 }, (_, i) => ({
    id: `r${i}`,
    verifier: 'qa',
    response: i < 4 ? `Answer: ${'CCAB'[i]}` : `\\boxed{${'CABC'[i - 4]}}`,
    label: { choice: 'C' },
  }));

  beforeAll(async () => {
    before = await startTestServer({ verifiers: TEST_VERIFIERS });
    after = await startTestServer({ verifiers: STRICTER_QA_VERIFIERS });
    writeFileSync(file('in.jsonl'), jsonl(rows));
    const old = await runCli(['score', file('in.jsonl'), '-o', file('old.jsonl'), '--server', `127.0.0.1:${before.grpcPort}`]);
    expect(old.code).toBe(0);
  });

  afterAll(async () => {
    await before.shutdown();
    await after.shutdown();
  });

  it('reports a verifier change per verifier: rewards changed, flips, means, and the cause from the receipts', async () => {
    const scored = await runCli(['score', file('in.jsonl'), '-o', file('new.jsonl'), '--server', `127.0.0.1:${after.grpcPort}`, '--max-invalid', '1']);
    expect(scored.code).toBe(0);
    const run = await runCli(['diff', file('old.jsonl'), file('new.jsonl'), '--show', '1']);
    expect(run.code).toBe(0);
    // Rows 1 and 2 were correct (C) and are now not_boxed: two 1→0 flips; mean 4/8 → 2/8.
    expect(run.stdout).toMatch(/^qa: 8 compared, 2 rewards changed \(0→1: 0, 1→0: 2\), mean reward 0\.5000 → 0\.2500; status changes: none; causes: 2 verifier$/m);
    expect(run.stdout).toMatch(/first 1 changed:\n\s+line 1 \(r0\), cause verifier\n\s+old: STATUS_OK reward 1 correct_choice qa@\d+\.\d+\.\d+ details \{.*\}\n\s+new: STATUS_OK reward 0 not_boxed qa@9\.0\.0-strict details \{\}/);
    expect(run.stdout).toMatch(/^2 of 8 results changed$/m);
    const failing = await runCli(['diff', file('old.jsonl'), file('new.jsonl'), '--fail-on-change', '--json']);
    expect(failing.code).toBe(1);
    const report = JSON.parse(failing.stdout) as { totalChanged: number; verifiers: Array<{ flipsDown: number; causes: Record<string, number> }> };
    expect(report.totalChanged).toBe(2);
    expect(report.verifiers[0]).toMatchObject({ flipsDown: 2, causes: { verifier: 2 } });
  });

  it('--compare OLD: a data change is told apart from a verifier change', async () => {
    // Same verifier, one row's data changed (its answer fixed) and one label turned invalid.
    const changed = rows.map((r, i) => (i === 5 ? { ...r, response: '\\boxed{C}' } : i === 6 ? { ...r, label: { choice: 'CC' } } : r));
    writeFileSync(file('in2.jsonl'), jsonl(changed));
    const run = await runCli(['score', file('in2.jsonl'), '-o', file('new2.jsonl'), '--server', `127.0.0.1:${before.grpcPort}`, '--compare', file('old.jsonl'), '--max-invalid', '0.2']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^qa: 8 compared, 1 rewards changed \(0→1: 1, 1→0: 0\), mean reward 0\.5000 → 0\.7143; status changes: 1 STATUS_OK → STATUS_INVALID; causes: 2 data$/m);
    expect(run.stdout).toMatch(/^2 of 8 results changed$/m);
  });

  it('files of different inputs are reported, not silently matched', async () => {
    writeFileSync(file('short.jsonl'), jsonl(rows.slice(0, 3)));
    await runCli(['score', file('short.jsonl'), '-o', file('short-out.jsonl'), '--server', `127.0.0.1:${before.grpcPort}`]);
    const run = await runCli(['diff', file('old.jsonl'), file('short-out.jsonl')]);
    expect(run.stdout).toMatch(/rows only in OLD: 5, only in NEW: 0 \(not the same input\?\)/);
  });
});
