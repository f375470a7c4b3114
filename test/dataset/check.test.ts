import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../services/paths';
import { createRegistry } from '../../verifiers';
import { jsonl, runCli } from './helpers';

const dir = mkdtempSync(path.join(tmpdir(), 'verdict-check-'));

const qa = (id: string, response: string, expect?: Record<string, unknown>) => ({ id, verifier: 'qa', response, label: { choice: 'C' }, ...(expect ? { expect } : {}) });

describe('verdict check', () => {
  const folder = path.join(dir, 'cases');
  const jsonlFile = path.join(folder, 'qa.cases.jsonl');
  const yamlFile = path.join(folder, 'nested', 'cases.yaml');

  beforeAll(() => {
    mkdirSync(path.join(folder, 'nested'), { recursive: true });
    writeFileSync(
      jsonlFile,
      jsonl([
        qa('right', '\\boxed{C}', { status: 'STATUS_OK', reward: 1, reason: 'correct_choice', details: { letter: 'C', rule: 'boxed' } }),
        qa('wrong-reward', '\\boxed{B}', { reward: 1 }),
        qa('close-enough', '\\boxed{C}', { reward: 0.95, tolerance: 0.1 }),
      ]),
    );
    writeFileSync(
      yamlFile,
      [
        '# math cases, kept as YAML',
        '- id: half',
        '  verifier: math',
        '  response: \\boxed{\\frac{1}{2}}',
        '  label: {gold: "0.5"}',
        '  expect: {status: STATUS_OK, reward: 1}',
        '- id: wrong-details',
        '  verifier: qa',
        '  response: \\boxed{B}',
        '  label: {choice: C}',
        '  expect:',
        '    reward: 0',
        '    details: {letter: A}',
        '',
      ].join('\n'),
    );
    // Not a case file by name: a folder search leaves it alone.
    writeFileSync(path.join(folder, 'notes.jsonl'), 'not a case\n');
  });

  it('finds case files in folders (JSONL and YAML), prints each failure with status, reason, reward and details, and exits 1', async () => {
    const run = await runCli(['check', folder]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^3 passed, 2 failed$/m);
    expect(run.stdout).toMatch(/FAIL \S+qa\.cases\.jsonl:2 \(wrong-reward\): reward 0, expected 1\n\s+got:\s+STATUS_OK reward 0 reason "wrong_choice"\n\s+expected: \{"reward":1\}\n\s+details:\s+\{"extracted":"B"/);
    expect(run.stdout).toMatch(/FAIL \S+cases\.yaml:7 \(wrong-details\): details\.letter "B", expected "A"/);
  });

  it('--filter keeps the matching cases; several paths are read together', async () => {
    const run = await runCli(['check', jsonlFile, yamlFile, '--filter', '^(right|half)$', '-v']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/PASS \S+qa\.cases\.jsonl:1 \(right\)/);
    expect(run.stdout).toMatch(/PASS \S+cases\.yaml:2 \(half\)/);
    expect(run.stdout).toMatch(/^2 passed, 0 failed$/m);
  });

  it('an INVALID result shows its status and reason; a case without expect is an error', async () => {
    const file = path.join(dir, 'errors.cases.jsonl');
    writeFileSync(file, jsonl([{ id: 'bad-label', verifier: 'qa', response: 'x', label: { answers: [true] }, expect: { reward: 1 } }, qa('no-expect', '\\boxed{C}')]));
    const run = await runCli(['check', file]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAIL \S+:1 \(bad-label\): reward absent, expected 1\n\s+got:\s+STATUS_INVALID reason "label\.answers\[0\]: expected a string"/);
    expect(run.stdout).toMatch(/FAIL \S+:2 \(no-expect\): expect: required/);
  });

  it('--update prints each change and rewrites the expectations (JSONL in place, YAML keeping its comments); then all pass', async () => {
    const update = await runCli(['check', folder, '--update']);
    expect(update.code).toBe(0);
    expect(update.stdout).toMatch(/update \S+qa\.cases\.jsonl:2 \(wrong-reward\): expect \{"reward":1\} → \{"status":"STATUS_OK","reward":0,"reason":"wrong_choice"\}/);
    expect(update.stdout).toMatch(/update \S+cases\.yaml:7 \(wrong-details\): expect \{"reward":0,"details":\{"letter":"A"\}\} → \{"status":"STATUS_OK","reward":0,"reason":"wrong_choice","details":\{"letter":"B"\}\}/);
    expect(update.stdout).toMatch(/2 cases updated, 0 cases cannot be updated/);
    const lines = readFileSync(jsonlFile, 'utf8').trim().split('\n');
    expect(JSON.parse(lines[1]!)).toEqual(qa('wrong-reward', '\\boxed{B}', { status: 'STATUS_OK', reward: 0, reason: 'wrong_choice' }));
    expect(JSON.parse(lines[0]!)).toEqual(qa('right', '\\boxed{C}', { status: 'STATUS_OK', reward: 1, reason: 'correct_choice', details: { letter: 'C', rule: 'boxed' } }));
    expect(readFileSync(yamlFile, 'utf8')).toMatch(/^# math cases, kept as YAML/);
    const again = await runCli(['check', folder]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^5 passed, 0 failed$/m);
  });

  it('no cases found is an error, not a pass', async () => {
    const empty = path.join(dir, 'empty');
    mkdirSync(empty);
    const run = await runCli(['check', empty]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no cases found/);
  });

  it('every registered verifier keeps a case file beside it (npm test runs them through verdict check)', () => {
    const root = packageRoot();
    for (const name of createRegistry().names()) {
      const cases = readFileSync(path.join(root, 'verifiers', name, 'cases.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { verifier: string });
      expect(cases.filter((c) => c.verifier === name).length).toBeGreaterThanOrEqual(2);
    }
    expect(readFileSync(path.join(root, 'package.json'), 'utf8')).toMatch(/verdict\.js check verifiers\//);
  });
});
