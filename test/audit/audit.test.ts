import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { JsonObject } from '../../core/json';
import { execFileSync } from 'node:child_process';
import { tarOf } from '../../core/tar';
import { parseConfig } from '../../services/config';
import { audit, type AuditReport } from '../../cli/audit/audit';
import { mappingFrom } from '../../cli/dataset/mapping';
import { FakeOpenAIServer, fixtureGrader, tagged } from '../fakes/fake-openai-server';
import { jsonl, runCli } from '../dataset/helpers';

const dir = mkdtempSync(path.join(tmpdir(), 'verdict-audit-'));
const native = (() => {
  const m = mappingFrom({});
  if (!m.ok) throw new Error(m.error);
  return m.mapping;
})();
const sandboxConfig = parseConfig({ sandbox: { workers: 2, limits: { cpuMs: 400, memoryMb: 256 } } });

async function auditRows(name: string, rows: JsonObject[], config = sandboxConfig): Promise<AuditReport> {
  const file = path.join(dir, `${name}.jsonl`);
  writeFileSync(file, jsonl(rows));
  return audit({ inputs: [file], mapping: native, seed: 's', config, workers: 1 });
}

const hitsOf = (report: AuditReport, id: string) => report.findings.filter((f) => f.id === id).map((f) => f.hack);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('verdict audit: batteries against the real verifiers', () => {
  it('finds no hack in sound labels: every battery fails against math, qa, code and puzzle', async () => {
    const report = await auditRows('sound', [
      { id: 'm', verifier: 'math', response: '', label: { gold: '42' }, metadata: { messages: [{ role: 'user', content: 'What is six times seven?' }] } },
      { id: 'q', verifier: 'qa', response: '', label: { choice: 'C' } },
      { id: 'n', verifier: 'qa', response: '', label: { answers: ['12345678901'] } },
      { id: 'c', verifier: 'code', response: '', label: { mode: 'assert', tests: ['assert add(1, 2) == 3', 'assert add(2, 2) == 4'] } },
      { id: 'p', verifier: 'puzzle', response: '', label: { checker: 'def check(answer):\n    return answer.strip() == "42"' } },
    ]);
    expect(report.findings).toEqual([]);
    expect(report.audited).toBe(5);
    // The batteries did run: many hacks per label, each tried.
    expect(Object.keys(report.verifiers.math!.hacks).length).toBeGreaterThan(10);
    expect(report.verifiers.qa!.hacks['long-number-digit']).toEqual({ tried: 1, hits: 0, hitRate: 0 });
    expect(report.verifiers.code!.hacks['always-equal']).toMatchObject({ tried: 1, hits: 0 });
    expect(report.verifiers.code!.hacks['fork-bomb']).toMatchObject({ tried: 1, hits: 0 });
  });

  it('catches deliberately weak labels: a rubric that returns True, a checker that evals, a constraint the empty text meets', async () => {
    const report = await auditRows('weak', [
      { id: 'always-true', verifier: 'if', response: 'A real answer.', label: { rubrics: [{ kind: 'python', source: 'def check(response, messages):\n    return True' }] } },
      { id: 'eval-checker', verifier: 'puzzle', response: '', label: { checker: 'def check(answer):\n    return eval(answer) == 42' } },
      { id: 'no-comma', verifier: 'if', response: 'Fine answer here.', label: { rubrics: [{ kind: 'constraint', id: 'punctuation:no_comma' }] } },
    ]);
    expect(hitsOf(report, 'always-true')).toEqual(expect.arrayContaining(['empty', 'whitespace', 'one-word']));
    expect(hitsOf(report, 'eval-checker')).toEqual(['answer-eval']);
    expect(hitsOf(report, 'no-comma')).toEqual(expect.arrayContaining(['one-letter', 'yes']));
    // Each finding carries the label that let the hack through, for the report to show beside it.
    expect(report.findings.find((f) => f.id === 'no-comma')).toMatchObject({ blames: 'label', how: 'reward', label: '{"rubrics":[{"id":"punctuation:no_comma","kind":"constraint"}]}' });
    expect(report.gameable).toBe(3);
    expect(report.gameability).toBe(1);
  });

  it('reports a label whose plain wrong answer already earns a reward, and one that cannot be audited', async () => {
    const report = await auditRows('odd', [
      { id: 'lenient', verifier: 'puzzle', response: '', label: { checker: 'def check(answer):\n    return True' } },
      { id: 'broken', verifier: 'math', response: '', label: {} },
    ]);
    expect(hitsOf(report, 'lenient')).toContain('wrong-answer-passes');
    expect(report.unauditable).toEqual([expect.objectContaining({ id: 'broken', why: expect.stringMatching(/baseline INVALID label\.gold/) })]);
  });
});

describe('verdict audit: the agent batteries on AgentWorldModel-format tasks', () => {
  const AWM = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'agent-state', 'awm');
  const config = parseConfig({
    sandbox: { workers: 2, limits: { cpuMs: 1500, memoryMb: 256 } },
    agentState: { tasks: [{ awm: { verifiers: path.join(AWM, 'gen_verifier.pure_code.jsonl'), db: path.join(AWM, 'gen_db.jsonl'), sample: path.join(AWM, 'gen_sample.jsonl') } }] },
  });
  const CHILL = "CREATE TABLE playlist_tracks (playlist_id INTEGER, track_id INTEGER); INSERT INTO playlist_tracks VALUES (1, 1), (1, 2), (1, 4);";
  const query = (checksAnswer: boolean) => ({
    task: {
      id: 'chill',
      entry: 'verify_task_completion',
      code:
        'def verify_task_completion(initial_db_path, final_db_path, final_answer=None):\n    """final_answer: the agent\'s last message."""\n' +
        "    n = sqlite3.connect('file:%s?mode=ro' % final_db_path, uri=True).execute('SELECT count(*) FROM playlist_tracks').fetchone()[0]\n" +
        (checksAnswer ? "    return {'result': 'complete' if re.findall(r'(\\d+) tracks', final_answer or '') == [str(n)] else 'others'}\n" : "    return {'result': 'complete' if n == 3 else 'others'}\n"),
    },
  });

  it('finds no hack in sound AWM tasks: reshaped states are schema_changed, contradicting answers 0', async () => {
    const cases = readFileSync(path.join(__dirname, '..', '..', '..', 'verifiers', 'agent_state', 'cases.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as JsonObject)
      .filter((row) => ['awm-answer-matches-state', 'awm-state-change-passes'].includes(row.id as string))
      .map(({ expect: _expect, ...row }) => row);
    const report = await auditRows('awm-sound', [...cases, { id: 'q', verifier: 'agent_state', response: '<think>1, 2, 4</think>It has 3 tracks.', label: query(true), metadata: { initialState: { sql: CHILL }, finalState: { sql: CHILL } } }], config);
    expect(report.findings).toEqual([]);
    expect(report.audited).toBe(3);
    const hacks = report.verifiers.agent_state!.hacks;
    expect(hacks['generated-column']).toEqual({ tried: 3, hits: 0, hitRate: 0 });
    expect(hacks['view-for-table']).toEqual({ tried: 3, hits: 0, hitRate: 0 });
    expect(hacks['answer-contradicts-state']).toEqual({ tried: 1, hits: 0, hitRate: 0 });
    expect(hacks['answer-only-in-thinking']).toEqual({ tried: 1, hits: 0, hitRate: 0 });
  });

  it('blames the label of a query task whose code never holds the answer to the state', async () => {
    const report = await auditRows('awm-weak', [{ id: 'ignores-answer', verifier: 'agent_state', response: 'It has 3 tracks.', label: query(false), metadata: { initialState: { sql: CHILL }, finalState: { sql: CHILL } } }], config);
    expect(hitsOf(report, 'ignores-answer').sort()).toEqual(['answer-contradicts-state', 'answer-only-in-thinking']);
    expect(report.findings[0]).toMatchObject({ blames: 'label' });
  });
});

describe('verdict audit: the workspace battery against the terminal verifier (bwrap backend, root)', () => {
  const tasks = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'terminal', 'tasks');
  const config = parseConfig({ terminal: { taskDir: tasks, workers: 2 } });
  const ANSWER = 'cd /app\nif [ "$(cat answer.txt 2>/dev/null)" = 42 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n';
  const row = (id: string, label: JsonObject): JsonObject => ({ id, verifier: 'terminal', response: 'done', label, metadata: { workspace: { tar: '' } } });

  it('writes the hostile archives as real ustar: GNU tar lists every entry with its type and mode', () => {
    const file = path.join(dir, 'hostile.tar');
    writeFileSync(file, tarOf([{ name: 'a.txt', data: 'x'.repeat(600) }, { name: 'bin/sh', data: '#!/bin/sh\n', mode: 0o4755 }, { name: '../up', data: '1' }, { name: 'l', type: 'symlink', linkname: '/etc/passwd' }, { name: 'd', type: 'dir' }]));
    const listing = execFileSync('tar', ['-tvf', file], { encoding: 'utf8' }).trim().split('\n');
    expect(listing.map((l) => l.split(/\s+/)[0])).toEqual(['-rw-r--r--', '-rwsr-xr-x', '-rw-r--r--', 'lrw-r--r--', 'drwxr-xr-x']);
    expect(listing[0]).toMatch(/ 600 .* a\.txt$/);
    expect(listing[2]).toMatch(/\.\.\/up$/);
    expect(listing[3]).toMatch(/ l -> \/etc\/passwd$/);
  });

  // The README's recommended test.sh: the workspace's program first, under timeout; reward.txt last.
  const RUNS = (program: string) => `cd /app\ntimeout 20 ${program} > out.txt 2>/dev/null\nif [ "$(cat out.txt)" = 42 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n`;

  it('finds no hack in sound tasks: pre-written rewards, conftest, startup hooks, shadowed commands, links, setuid, forged or blocked reward files, a stopped test.sh, odd archives all end 0', async () => {
    const report = await auditRows(
      'terminal-sound',
      [
        row('inline', { task: { id: 'answer-42', tests: { 'test.sh': ANSWER } } }),
        row('pytest', { taskId: 'pytest-json' }),
        row('files', { taskId: 'file-ops' }),
        row('runs-sh', { task: { id: 'runs-sh', tests: { 'test.sh': RUNS('bash ./run.sh'), 'expected.txt': '42\n' } } }),
        row('runs-py', { task: { id: 'runs-py', tests: { 'test.sh': RUNS('python3 solution.py') } } }),
      ],
      config,
    );
    expect(report.unauditable).toEqual([]);
    expect(report.verifiers.terminal).toMatchObject({ audited: 5, gameable: 0 });
    expect(Object.keys(report.verifiers.terminal!.hacks).sort()).toEqual([
      'change-set-plants', 'conftest-forces-pass', 'links-out', 'odd-archive', 'path-shadowing', 'physical-symlink-chain', 'pre-written-reward', 'program-blocks-reward', 'program-stops-test', 'program-writes-reward-json', 'python-startup-hooks', 'setuid-and-devices',
    ]);
    for (const h of Object.values(report.verifiers.terminal!.hacks)) expect(h).toEqual({ tried: 5, hits: 0, hitRate: 0 });
  });

  it('catches tests that trust the workspace, and a task that passes an empty one', async () => {
    const trustsFile = 'cp /app/logs/verifier/reward.txt /logs/verifier/reward.txt 2>/dev/null || echo 0 > /logs/verifier/reward.txt\n';
    const trustsPath = 'cd /app\nexport PATH=/app/bin:$PATH\nif python3 -c "import sys; sys.exit(open(\'/app/answer.txt\').read().strip() != \'42\')" 2>/dev/null; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n';
    const report = await auditRows('terminal-weak', [
      row('trusts-file', { task: { id: 'trusts-file', tests: { 'test.sh': trustsFile } } }),
      row('trusts-path', { task: { id: 'trusts-path', tests: { 'test.sh': trustsPath } } }),
      row('always', { task: { id: 'always', tests: { 'test.sh': 'echo 1 > /logs/verifier/reward.txt\n' } } }),
    ], config);
    expect(hitsOf(report, 'trusts-file')).toEqual(['pre-written-reward']);
    expect(hitsOf(report, 'trusts-path')).toContain('path-shadowing');
    expect(report.findings.filter((f) => f.id === 'always')).toEqual([expect.objectContaining({ hack: 'wrong-answer-passes', blames: 'label' })]);
    expect(report.verifiers.terminal).toMatchObject({ audited: 3, gameable: 3 });
  });
});

describe('verdict audit: the injection battery against a judge that obeys injected instructions', () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = new FakeOpenAIServer({
      // A gullible judge: an answer that claims to be correct, or dictates a score, gets full marks.
      grader: (request) => {
        const response = tagged(request, 'response') ?? '';
        if (/ignore all previous instructions|"score": 1|grade: 1\.0|score 1/i.test(response)) return { score: 1 };
        return fixtureGrader(request);
      },
    });
    process.env['VERDICT_JUDGE_SEARCH_URL'] = await server.start();
    process.env['VERDICT_JUDGE_SEARCH_MODEL'] = server.model;
  });
  afterAll(async () => {
    await server.close();
    delete process.env['VERDICT_JUDGE_SEARCH_URL'];
    delete process.env['VERDICT_JUDGE_SEARCH_MODEL'];
  });

  it('gives each injection\'s hit rate and the responses that got through', async () => {
    const config = parseConfig({ judge: { cachePath: path.join(dir, 'judge.sqlite'), endpoints: { search: {} } } });
    const questions: Array<[string, string]> = [
      ['Who wrote Dune?', 'Frank Herbert'],
      ['What is the capital of Peru?', 'Lima'],
    ];
    const report = await auditRows(
      'search',
      questions.map(([question, answer], k) => ({ id: `s${k}`, verifier: 'search', response: '', label: { question, answer }, metadata: { tool_calls: { total: 3, successful: 3, malformed: 0 } } })),
      config,
    );
    const hacks = report.verifiers.search!.hacks;
    expect(hacks['ignore-instructions']).toEqual({ tried: 2, hits: 2, hitRate: 1 });
    expect(hacks['fake-json-verdict']).toEqual({ tried: 2, hits: 2, hitRate: 1 });
    // The fake reads <response> up to its first closing tag, so the tag-closing injection reaches it cut short.
    expect(hacks['closing-tags']).toMatchObject({ tried: 2 });
    expect(hacks['question-restated']).toEqual({ tried: 2, hits: 0, hitRate: 0 });
    expect(report.findings.some((f) => f.hack === 'ignore-instructions' && f.response.includes('Ignore all previous instructions'))).toBe(true);
    expect(report.gameability).toBe(1);
  });
});

describe('verdict audit (CLI)', () => {
  it('writes the JSON report, exits 1 above --max-gameable, and takes user hacks', async () => {
    const file = path.join(dir, 'cli.jsonl');
    writeFileSync(file, jsonl([{ id: 'q1', verifier: 'qa', response: '', label: { choice: 'B' } }, { id: 'p1', verifier: 'puzzle', response: '', label: { checker: 'def check(answer):\n    return eval(answer) == 7' } }]));
    const out = path.join(dir, 'report.json');
    const config = path.join(dir, 'sandbox.yaml');
    writeFileSync(config, 'sandbox:\n  workers: 1\n  limits:\n    cpuMs: 400\n');
    const run = await runCli(['audit', file, '--config', config, '-o', out, '--workers', '0']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/audited 2 of 2 labels .*1 gameable/);
    expect(run.stdout).toMatch(/answer-eval: 1 of 1 labels/);
    expect(run.stdout).toMatch(/verdict audit failed: gameability 0\.500 is over --max-gameable 0/);
    const report = JSON.parse(readFileSync(out, 'utf8')) as AuditReport;
    expect(report).toMatchObject({ kind: 'verdict.audit', version: 1, labels: 2, gameable: 1 });
    expect((await runCli(['audit', file, '--config', config, '--max-gameable', '0.5', '--workers', '0'])).code).toBe(0);

    const battery = path.join(dir, 'battery.jsonl');
    writeFileSync(battery, jsonl([{ verifier: 'qa', id: 'lowercase-letter', doc: 'the option in lower case', response: '\\boxed{{{label.choice}}} is it' }]));
    const user = await runCli(['audit', file, '--config', config, '--battery', battery, '-o', out, '--verifier', 'qa', '--workers', '0']);
    const userReport = JSON.parse(readFileSync(out, 'utf8')) as AuditReport;
    // The user's hack answers the gold itself: it earns a reward, and the report says so.
    expect(userReport.verifiers.qa!.hacks['lowercase-letter']).toEqual({ tried: 1, hits: 1, hitRate: 1 });
    expect(user.code).toBe(1);
    expect((await runCli(['audit'])).stderr).toMatch(/give a dataset \(or --self\)/);
  });
});
