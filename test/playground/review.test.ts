import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { writeFixtures } from '../curate/dense-fixtures';
import { FakeEmbeddingsServer } from '../fakes/fake-embeddings-server';
import { VERDICT_BIN } from '../fixtures/cli';

/** Debian's chromium, driven by playwright-core: the review page of `verdict curate dense` in a real browser. */
const CHROMIUM = '/usr/bin/chromium';
const OUTPUT = join(__dirname, '..', '..', '..', 'test-output', 'playground');

describe('the dense-retrieval review page in headless chromium', () => {
  let browser: Browser;
  let server: FakeEmbeddingsServer;
  let url: string;
  let dir: string;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM });
    server = new FakeEmbeddingsServer({ dims: 128 });
    url = await server.start();
    dir = mkdtempSync(join(tmpdir(), 'verdict-review-'));
  });
  afterAll(async () => {
    await browser.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [VERDICT_BIN, ...args], { cwd: dir, env: { ...process.env, VERDICT_EMBEDDINGS_DEFAULT_URL: url, VERDICT_EMBEDDINGS_DEFAULT_MODEL: 'fake-embed' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  const open = async (html: string): Promise<{ page: Page; errors: string[] }> => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 }, acceptDownloads: true });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`file://${html}`);
    await page.waitForSelector('#app[data-ready=true]');
    return { page, errors };
  };

  it('shows each pair side by side with the shared runs marked, takes decisions, exports them, and verdict curate applies the file', async () => {
    const files = writeFixtures(dir);
    const dense = [files.train, '--benchmark', `aime24=${files.bench}`, '--text-field', 'messages', '--k', '2', '--threshold', '0.5', '--workers', '1'];
    const first = await cli(['curate', 'dense', ...dense, '--summary-json', join(dir, 'dense.json')]);
    expect(first.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(dir, 'dense.json'), 'utf8')) as { pairs: Array<{ id: string; itemId: string; reasons: string[] }> };
    expect((await cli(['report', join(dir, 'dense.json'), '-o', join(dir, 'review.html')])).code).toBe(0);

    const { page, errors } = await open(join(dir, 'review.html'));
    await expect(page.textContent('[data-kind="verdict.curate"] table')).resolves.toContain('aime24');
    const articles = page.locator('article.review-pair');
    expect(await articles.count()).toBe(summary.pairs.length);
    // Pairs come most similar first: the verbatim copy, its problem marked whole on both sides.
    const verbatim = articles.nth(0);
    await expect(verbatim.locator('h3').textContent()).resolves.toMatch(/aime24 aime-1 ↔ line 1 \(verbatim\): cosine 0\.\d{4}/);
    await expect(verbatim.textContent()).resolves.toContain('8-gram: sampled and exhaustive');
    const marks = await verbatim.locator('mark').allTextContents();
    expect(marks).toHaveLength(2);
    expect(marks[0]).toContain('Find the number of ordered pairs of positive integers');
    expect(marks[1]).toBe(marks[0]);
    // The reformatted problem: not flagged by the 8-gram screens, only shorter shared runs marked.
    const reformatted = articles.nth(1);
    await expect(reformatted.locator('h3').textContent()).resolves.toContain('aime-2 ↔ line 2 (reformatted)');
    await expect(reformatted.textContent()).resolves.toContain('not flagged by the 8-gram screens');
    // A sample's text is text, never markup.
    expect(await page.locator('.review-text script').count()).toBe(0);

    await page.check('#decision-0-contaminated');
    await page.check('#decision-1-benign');
    await expect(page.textContent('#review-counts')).resolves.toBe(`1 contaminated, 1 benign, ${summary.pairs.length - 2} undecided of ${summary.pairs.length} pairs`);
    expect(await verbatim.getAttribute('data-decision')).toBe('contaminated');
    await page.selectOption('#review-filter', 'undecided');
    expect(await page.locator('article.review-pair[data-pair="0"]').count()).toBe(0);
    expect(await articles.count()).toBe(summary.pairs.length - 2);
    await page.selectOption('#review-filter', 'all');
    expect(await articles.count()).toBe(summary.pairs.length);
    expect(await page.isChecked('#decision-0-contaminated')).toBe(true);
    expect(await page.locator('#review-more').isHidden()).toBe(true);

    // No reviewer name: the export refuses, saying why, at the field.
    await page.click('#export-decisions');
    await expect(page.textContent('#review-error')).resolves.toContain('Enter your name as reviewer');
    expect(await page.getAttribute('#reviewer', 'aria-invalid')).toBe('true');
    await page.fill('#reviewer', 'alice');
    await page.fill('#note-0', 'AIME 2024 I problem, verbatim');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-decisions')]);
    expect(download.suggestedFilename()).toBe('decisions.jsonl');
    const decisionsFile = join(dir, 'decisions.jsonl');
    await download.saveAs(decisionsFile);
    const decisions = readFileSync(decisionsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(decisions).toHaveLength(2);
    expect(decisions[0]).toMatchObject({ benchmark: 'aime24', itemId: 'aime-1', id: 'verbatim', line: 1, decision: 'contaminated', reviewer: 'alice', note: 'AIME 2024 I problem, verbatim' });
    expect(decisions[1]).toMatchObject({ itemId: 'aime-2', id: 'reformatted', decision: 'benign', reviewer: 'alice', note: null });
    expect(Number.isNaN(Date.parse(String(decisions[0]!['decidedAt'])))).toBe(false);
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'review-dense.png') });
    expect(errors).toEqual([]);
    await page.close();

    // verdict curate applies the exported file: the contaminated sample is dropped, with alice's decision beside it.
    const applied = await cli(['curate', 'dense', ...dense, '--decisions', decisionsFile, '-o', join(dir, 'kept.jsonl'), '--removed', join(dir, 'removed.jsonl'), '--summary-json', join(dir, 'applied.json')]);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const kept = readFileSync(join(dir, 'kept.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id);
    expect(kept).not.toContain('verbatim');
    expect(kept).toContain('reformatted');
    const removed = JSON.parse(readFileSync(join(dir, 'removed.jsonl'), 'utf8').trim()) as { id: string; decisions: Array<{ reviewer: string }> };
    expect(removed.id).toBe('verbatim');
    expect(removed.decisions[0]!.reviewer).toBe('alice');

    // The applied summary's page starts from those decisions.
    expect((await cli(['report', join(dir, 'applied.json'), '-o', join(dir, 'applied.html')])).code).toBe(0);
    const again = await open(join(dir, 'applied.html'));
    expect(await again.page.isChecked('#decision-0-contaminated')).toBe(true);
    await expect(again.page.textContent('[data-kind="verdict.curate"]')).resolves.toContain('Decisions applied: dropped 1 samples, kept 5.');
    expect(again.errors).toEqual([]);
    await again.page.close();
  });
});
