import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { RunningServer } from '../../services/server';
import { parseConfig } from '../../services/config';
import { FakeOpenAIServer } from '../fakes/fake-openai-server';
import { FakeVllmServer } from '../fakes/fake-vllm-server';
import { startTestServer } from '../fixtures/server';
import { MODEL } from '../rlhf/harness';
import { generateResults } from './results';

/** Debian's chromium (installed by .ci/run), driven by playwright-core: the real pages in a real browser. */
const CHROMIUM = '/usr/bin/chromium';
const OUTPUT = join(__dirname, '..', '..', '..', 'test-output', 'playground');
const CLI = join(__dirname, '..', '..', '..', 'bin', 'verdict.js');

/** Saves a screenshot into the test output and checks that it is not blank: its bytes' pixels vary. */
async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(OUTPUT, { recursive: true });
  const path = join(OUTPUT, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  // Decoded by the browser itself: the variance of the grey levels of the PNG drawn on a canvas.
  const png = readFileSync(path).toString('base64');
  // A string, not a function: the test's TypeScript has no DOM types; the page has the DOM.
  const variance = (await page.evaluate(`(async () => {
    const img = new Image();
    img.src = 'data:image/png;base64,${png}';
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.width;
    canvas.height = img.height;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const px = ctx.getImageData(0, 0, img.width, img.height).data;
    let sum = 0, sq = 0;
    const n = px.length / 4;
    for (let i = 0; i < px.length; i += 4) {
      const g = (px[i] + px[i + 1] + px[i + 2]) / 3;
      sum += g;
      sq += g * g;
    }
    return sq / n - (sum / n) ** 2;
  })()`)) as number;
  expect(variance).toBeGreaterThan(100);
}

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  return errors;
}

describe('playground and report pages in headless chromium', () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM });
    dir = mkdtempSync(join(tmpdir(), 'verdict-playground-'));
  });
  afterAll(async () => {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('GET / on a server with auth', () => {
    let server: RunningServer;
    let base: string;
    beforeAll(async () => {
      server = await startTestServer({ authToken: 'sesame' });
      base = `http://127.0.0.1:${server.httpPort}`;
    });
    afterAll(() => server.shutdown());

    it('serves a page that holds nothing without the token, and the API stays closed', async () => {
      const res = await fetch(`${base}/`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'.*connect-src 'self'/);
      expect((await fetch(`${base}/v1/verifiers`)).status).toBe(401);
      const page = await browser.newPage();
      const errors = watchErrors(page);
      await page.goto(base);
      await expect(page.textContent('#connection')).resolves.toMatch(/wants a bearer token/);
      expect(await page.locator('#verifier').isDisabled()).toBe(true);
      expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
      await page.fill('#token', 'sesame');
      await page.click('#connect button');
      await page.waitForSelector('#verifier:not([disabled])');
      await expect(page.textContent('#connection')).resolves.toMatch(/Connected: \d+ verifiers/);
      await page.close();
    });

    const score = async (page: Page, verifier: string) => {
      await page.selectOption('#verifier', verifier);
      await page.click('#score');
      await page.waitForSelector('#output .result');
    };

    it('scores math, qa and if through the page: status, reward, reason, the extracted answer, each rubric', async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      const errors = watchErrors(page);
      await page.goto(base);
      await page.fill('#token', 'sesame');
      await page.click('#connect button');
      await page.waitForSelector('#verifier:not([disabled])');

      // math with its example label: the boxed fraction is the extracted answer, highlighted.
      await score(page, 'math');
      expect(await page.textContent('#output .status')).toBe('OK');
      expect(await page.textContent('#output .reward')).toBe('1');
      expect(await page.textContent('#output .reason')).toBe('correct');
      expect(await page.textContent('#output mark')).toBe('\\frac{1}{2}');
      await screenshot(page, 'playground-math');

      // qa: a wrong letter, then a label the schema refuses, its error shown at the field.
      await page.selectOption('#verifier', 'qa');
      await page.fill('#label-choice', 'B');
      await page.click('#score');
      await page.waitForSelector('#output .result');
      expect(await page.textContent('#output .reward')).toBe('0');
      expect(await page.textContent('#output .reason')).toBe('wrong_choice');
      expect(await page.textContent('#output mark')).toBe('A');
      await page.fill('#label-choice', 'AB');
      await page.click('#score');
      await expect(page.textContent('[data-field=choice] .field-error')).resolves.toMatch(/must match/);
      await page.fill('#label-threshold', '2');
      await page.fill('#label-choice', 'A');
      await page.click('#score');
      await expect(page.textContent('[data-field=threshold] .field-error')).resolves.toBe('at most 1');
      expect(await page.getAttribute('#label-threshold', 'aria-invalid')).toBe('true');
      await page.fill('#label-threshold', '');

      // if: each rubric with its verdict; the example response is short and lower case.
      await score(page, 'if');
      expect(await page.textContent('#output .status')).toBe('OK');
      expect(await page.locator('#output td .verdict-pass').count()).toBe(2);
      await page.fill('#response', 'Not Lower Case At All, and it has far more than ten words in it today');
      await page.click('#score');
      await page.waitForSelector('#output .verdict-fail');
      expect(await page.textContent('#output .reason')).toBe('rubric_failed');

      // A group: the summary and an advantage per rollout.
      await page.selectOption('#verifier', 'math');
      await page.fill('#group', '\\boxed{3}\n---\n\\boxed{0.5}');
      await page.click('#score');
      await page.waitForSelector('#output table');
      expect(await page.locator('#output .result').count()).toBe(3);
      expect(await page.locator('#output .advantage').count()).toBe(3);
      expect(await page.textContent('#output table tbody')).toContain('playground');
      await screenshot(page, 'playground-group');
      // The one 401 is the page's first call, made before the token was typed.
      expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
      await page.close();
    });
  });

  describe('every other verifier through the page: the sandbox, the terminal backend, a judge and a reward model', () => {
    let server: RunningServer;
    let judge: FakeOpenAIServer;
    let rm: FakeVllmServer;
    let page: Page;
    let errors: string[];
    beforeAll(async () => {
      judge = new FakeOpenAIServer();
      process.env['VERDICT_JUDGE_SEARCH_URL'] = await judge.start();
      process.env['VERDICT_JUDGE_SEARCH_MODEL'] = judge.model;
      rm = new FakeVllmServer();
      const url = await rm.listen();
      const config = parseConfig({
        sandbox: { workers: 1 },
        terminal: { workers: 1 },
        judge: { cachePath: join(dir, 'judge.sqlite'), endpoints: { search: {} } },
        rewardModel: { endpoints: { skywork: { server: 'vllm', url, model: MODEL, input: 'text', chatTemplate: 'qwen3' } } },
      });
      server = await startTestServer({ config });
      page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      errors = watchErrors(page);
      await page.goto(`http://127.0.0.1:${server.httpPort}/`);
      await page.waitForSelector('#verifier:not([disabled])');
    });
    afterAll(async () => {
      await page.close();
      await server.shutdown();
      await judge.close();
      await rm.close();
      delete process.env['VERDICT_JUDGE_SEARCH_URL'];
      delete process.env['VERDICT_JUDGE_SEARCH_MODEL'];
    });

    /** Picks the verifier (its example label, response and metadata fill the form) and scores it. */
    const scoreExample = async (verifier: string) => {
      await page.selectOption('#verifier', verifier);
      await page.click('#score');
      await page.waitForSelector('#output .result');
    };

    it('code: every test with its verdict, the failing one with expected against got', async () => {
      await scoreExample('code');
      expect(await page.textContent('#output .status')).toBe('OK');
      expect(await page.textContent('#output .reward')).toBe('1');
      expect(await page.textContent('#output .tests')).toBe('2 of 2 tests passed');
      expect(await page.locator('#output td .verdict-pass').count()).toBe(2);
      await page.fill('#response', '```python\ndef add(a, b):\n    return a - b\n```');
      await page.click('#score');
      await page.waitForSelector('#output .verdict-fail');
      expect(await page.textContent('#output .reason')).toBe('wrong_answer');
      const cells = await page.locator('#output tbody tr').first().locator('td').allTextContents();
      expect(cells.slice(0, 3)).toEqual(['0', 'assert add(1, 2) == 3', 'failed: assertion_failed']);
      await expect(page.textContent('#output tbody tr:nth-child(2)')).resolves.toContain('not run');
      // stdin/stdout tests carry the expected output and what the program printed.
      await page.selectOption('#label-variant', { label: 'mode "stdio"' });
      await page.fill('#label-tests', JSON.stringify([{ stdin: '2 3\n', stdout: '5\n' }, { stdin: '1 1\n', stdout: '2\n' }]));
      await page.fill('#response', '```python\na, b = map(int, input().split())\nprint(a * b)\n```');
      await page.click('#score');
      await page.waitForSelector('#output .verdict-fail');
      const stdio = await page.locator('#output tbody tr').first().locator('td').allTextContents();
      expect(stdio[0]).toBe('0');
      expect(stdio[3]).toContain('5');
      expect(stdio[4]).toContain('6');
      await screenshot(page, 'playground-code');
    });

    it('puzzle: the checker\'s verdict on the boxed answer', async () => {
      await scoreExample('puzzle');
      expect(await page.textContent('#output .status')).toBe('OK');
      expect(await page.textContent('#output .reward')).toBe('1');
      await page.fill('#response', '\\boxed{13}');
      await page.click('#score');
      // The page's CSP forbids the string evaluation waitForFunction needs: the wait is a selector.
      await page.waitForSelector('#output .reward:text-is("0")');
    });

    it('search: the judge\'s verdict and the extracted answer', async () => {
      await scoreExample('search');
      expect(await page.textContent('#output .status')).toBe('OK');
      expect(await page.textContent('#output .reward')).toBe('1');
      expect(await page.textContent('#output mark')).toBe('Frank Herbert');
      expect(judge.calls).toBeGreaterThan(0);
      await screenshot(page, 'playground-search');
    });

    it('rlhf: the reward model\'s score of the response to the prompt in metadata', async () => {
      await scoreExample('rlhf');
      expect(await page.textContent('#output .status')).toBe('OK');
      expect(Number(await page.textContent('#output .reward'))).not.toBeNaN();
      await expect(page.textContent('#output .details')).resolves.toContain('raw_score');
    });

    it('agent_state: an AgentWorldModel task\'s verification of the final database and the final answer', async () => {
      await scoreExample('agent_state');
      expect(await page.textContent('#output .status')).toBe('OK');
      expect(await page.textContent('#output .reward')).toBe('1');
      expect(await page.textContent('#output .task-verdict')).toBe('Task chill-track-count: passed (complete)');
      // The state is right, the answer after </think> is not: 0.
      await page.fill('#response', '<think>Chill holds tracks 1, 2 and 4.</think>\nYour Chill playlist has 4 tracks.');
      await page.click('#score');
      await page.waitForSelector('#output .task-verdict:has-text("failed")');
      expect(await page.textContent('#output .task-verdict')).toBe('Task chill-track-count: failed (others)');
    });

    it('terminal: the Harbor test run on the workspace archive, its reward file and exit code', async () => {
      await scoreExample('terminal');
      expect(await page.textContent('#output .status')).toBe('OK');
      expect(await page.textContent('#output .reward')).toBe('1');
      expect(await page.textContent('#output .reason')).toBe('tests_passed');
      const run = await page.locator('#output table tbody').textContent();
      expect(run).toContain('answer-42');
      expect(run).toContain('reward.txt: 1');
      await screenshot(page, 'playground-terminal');
      expect(errors).toEqual([]);
    });
  });

  it('verdict report of 100k results: counts, group window, truncation, a filterable table, and the playground opens the same file', async () => {
    const { rows, expected } = generateResults(100_000);
    const results = join(dir, 'results.jsonl');
    writeFileSync(results, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const html = join(dir, 'report.html');
    expect(execFileSync('node', [CLI, 'report', results, '-o', html], { encoding: 'utf8' })).toMatch(/wrote .*report\.html \(100000 results\)/);
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const errors = watchErrors(page);
    // No request may leave a report: any would be refused and logged by the CSP.
    await page.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
    await page.goto(`file://${html}`);
    await page.waitForSelector('#app[data-ready=true]', { timeout: 120_000 });
    expect(await page.getAttribute('.totals', 'data-total')).toBe('100000');
    expect(await page.textContent('[data-status=OK] strong')).toBe(String(expected.ok));
    expect(await page.textContent('[data-status=INVALID] strong')).toBe(String(expected.invalid));
    expect(await page.textContent('[data-status=ABORTED] strong')).toBe(String(expected.aborted));
    expect(await page.getAttribute('[data-truncated]', 'data-truncated')).toBe(String(expected.truncated));
    await expect(page.textContent('section[aria-label="Group pass rates"] .note')).resolves.toContain(`${expected.inWindow} groups`);
    await expect(page.textContent('section[aria-label="Latency"]')).resolves.toMatch(/p99/);
    const failed = rows.filter((r) => r['status'] !== 'STATUS_OK' || r['reward'] !== 1).length;
    expect(await page.textContent('.vt-count')).toBe(`${failed} rows`);
    // The virtualized table keeps only the rows in view in the page.
    expect(await page.locator('.vt-body .vt-row').count()).toBeLessThan(30);
    await page.selectOption('#filter-status', 'ABORTED');
    expect(await page.textContent('.vt-count')).toBe(`${expected.aborted} rows`);
    await page.focus('.vt-viewport');
    await page.keyboard.press('ArrowDown');
    await expect(page.textContent('.vt-detail')).resolves.toContain('deadline_exceeded');
    await screenshot(page, 'report-100k');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the playground opens an uploaded results file as the same report', async () => {
    const server = await startTestServer();
    try {
      const { rows, expected } = generateResults(2_000);
      const results = join(dir, 'upload.jsonl');
      writeFileSync(results, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${server.httpPort}/`);
      await page.setInputFiles('#results-file', results);
      await page.waitForSelector('#report [data-kind=results]');
      expect(await page.getAttribute('#report .totals', 'data-total')).toBe('2000');
      expect(await page.textContent('#report [data-status=ABORTED] strong')).toBe(String(expected.aborted));
      await page.close();
    } finally {
      await server.shutdown();
    }
  });

  it('verdict report of a diff --json report, and a clear error for a kind it does not know', async () => {
    const row = (line: number, reward: number) => ({ id: `r${line}`, line, status: 'STATUS_OK', reward, reason: reward ? 'correct' : 'wrong_answer', verifier: 'math', verifierVersion: '1', details: {}, receipt: { verifier: 'math@1', config: 'c', input: 'i' } });
    writeFileSync(join(dir, 'old.jsonl'), [row(1, 1), row(2, 0), row(3, 1)].map((r) => JSON.stringify(r)).join('\n'));
    writeFileSync(join(dir, 'new.jsonl'), [row(1, 0), row(2, 0), row(3, 1)].map((r) => JSON.stringify({ ...r, receipt: { ...r.receipt, verifier: 'math@2' } })).join('\n'));
    const diff = execFileSync('node', [CLI, 'diff', join(dir, 'old.jsonl'), join(dir, 'new.jsonl'), '--json'], { encoding: 'utf8' });
    expect(JSON.parse(diff)).toMatchObject({ kind: 'verdict.diff', version: 1, totalChanged: 1 });
    writeFileSync(join(dir, 'diff.json'), diff);
    execFileSync('node', [CLI, 'report', join(dir, 'diff.json'), '-o', join(dir, 'diff.html')]);
    const page = await browser.newPage();
    await page.goto(`file://${join(dir, 'diff.html')}`);
    await page.waitForSelector('#app[data-ready=true]');
    expect(await page.getAttribute('[data-kind="verdict.diff"] .totals', 'data-changed')).toBe('1');
    expect(await page.locator('.side-by-side').count()).toBe(1);
    await expect(page.textContent('.side-by-side')).resolves.toContain('cause verifier');
    await screenshot(page, 'report-diff');
    await page.close();

    writeFileSync(join(dir, 'other.json'), JSON.stringify({ kind: 'verdict.nonesuch', version: 1 }));
    let stderr = '';
    try {
      execFileSync('node', [CLI, 'report', join(dir, 'other.json'), '-o', join(dir, 'c.html')], { encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      stderr = String((error as { stderr: string }).stderr);
    }
    expect(stderr).toMatch(/unknown report kind "verdict\.nonesuch" \(known: verdict\.diff, verdict\.curate, verdict\.audit/);
  });

  it('verdict report of curate and audit reports, as the commands write them', async () => {
    const words = (tag: string) => Array.from({ length: 60 }, (_, k) => `${tag}${k}`).join(' ');
    writeFileSync(join(dir, 'bench.jsonl'), JSON.stringify({ id: 'b1', question: words('alpha') }) + '\n');
    writeFileSync(join(dir, 'train.jsonl'), [{ id: 't1', text: `copy: ${words('alpha')}` }, { id: 't2', text: 'clean' }].map((r) => JSON.stringify(r)).join('\n') + '\n');
    execFileSync('node', [CLI, 'curate', 'decontam', join(dir, 'train.jsonl'), '--benchmark', join(dir, 'bench.jsonl'), '--summary-json', join(dir, 'decontam.json'), '--workers', '0']);
    execFileSync('node', [CLI, 'report', join(dir, 'decontam.json'), '-o', join(dir, 'decontam.html')]);
    writeFileSync(join(dir, 'audit-in.jsonl'), JSON.stringify({ id: 'q', verifier: 'qa', response: '', label: { choice: 'B' } }) + '\n');
    execFileSync('node', [CLI, 'audit', join(dir, 'audit-in.jsonl'), '-o', join(dir, 'audit.json'), '--workers', '0']);
    execFileSync('node', [CLI, 'report', join(dir, 'audit.json'), '-o', join(dir, 'audit.html')]);
    const page = await browser.newPage();
    await page.goto(`file://${join(dir, 'decontam.html')}`);
    await page.waitForSelector('#app[data-ready=true]');
    await expect(page.textContent('[data-kind="verdict.curate"] .totals')).resolves.toContain('2 samples screened (words form): kept 1, removed 1');
    await expect(page.textContent('[data-kind="verdict.curate"]')).resolves.toContain('alpha0 alpha1 alpha2');
    await screenshot(page, 'report-curate');
    await page.goto(`file://${join(dir, 'audit.html')}`);
    await page.waitForSelector('#app[data-ready=true]');
    expect(await page.getAttribute('[data-kind="verdict.audit"] .totals', 'data-gameable')).toBe('0');
    await expect(page.textContent('[data-kind="verdict.audit"] .totals')).resolves.toContain('1 of 1 labels audited');
    await screenshot(page, 'report-audit');
    await page.close();
  });
});
