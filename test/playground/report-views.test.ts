import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { readParquet } from '../dataset/helpers';

/**
 * `verdict report RESULTS --input DATASET` in headless chromium: each result beside the response it
 * was given for, the extracted answer marked; response lengths per verifier; reward spread per group.
 */
const CHROMIUM = '/usr/bin/chromium';
const CLI = join(__dirname, '..', '..', '..', 'bin', 'verdict.js');

describe('verdict report --input: the responses behind the rewards', () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM });
    dir = mkdtempSync(join(tmpdir(), 'verdict-report-responses-'));
  });
  afterAll(async () => {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the failures table opens on the response with the extracted answer marked; lengths and group spread are drawn', async () => {
    const long = `${'Let me think about this very carefully. '.repeat(500)}So the answer is \\boxed{7}.`;
    const samples = [
      { id: 'g1-a', verifier: 'math', groupId: 'g1', response: 'We add: \\boxed{2}', label: { gold: '2' } },
      { id: 'g1-b', verifier: 'math', groupId: 'g1', response: 'Surely 1 + 1 = \\boxed{3} since <b>bold</b>', label: { gold: '2' } },
      { id: 'g1-c', verifier: 'math', groupId: 'g1', response: long, label: { gold: '2' } },
      { id: 'g2-a', verifier: 'math', groupId: 'g2', response: '\\boxed{4}', label: { gold: '4' } },
      { id: 'g2-b', verifier: 'math', groupId: 'g2', response: 'it is \\boxed{4}', label: { gold: '4' } },
    ];
    const input = join(dir, 'rollouts.jsonl');
    writeFileSync(input, samples.map((s) => JSON.stringify(s)).join('\n') + '\n');
    const results = join(dir, 'results.jsonl');
    execFileSync('node', [CLI, 'score', input, '-o', results, '--workers', '0']);
    const html = join(dir, 'report.html');
    expect(execFileSync('node', [CLI, 'report', results, '--input', input, '-o', html], { encoding: 'utf8' })).toMatch(/\(5 results, 5 with their response\)/);
    // Each response is kept up to a bound: the long one is cut, and says how long it was.
    const page = readFileSync(html, 'utf8');
    expect(page).toContain(`[truncated: ${long.length} characters in all]`);
    expect(page).not.toContain(long);

    const tab = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await tab.goto(`file://${html}`);
    await tab.waitForSelector('#app[data-ready=true]');
    await expect(tab.textContent('section[aria-label="Response lengths"]')).resolves.toMatch(/math: response length in characters of 5 results/);
    // g2 scored 1 and 1: no spread; g1 scored 1, 0, 0.
    expect(await tab.getAttribute('.group-spread', 'data-no-spread')).toBe('1');
    await tab.focus('.vt-viewport');
    await tab.keyboard.press('ArrowDown');
    await tab.waitForSelector('.vt-detail pre.response');
    expect(await tab.textContent('.vt-detail mark')).toBe('3');
    // The response is text, never markup.
    await expect(tab.textContent('.vt-detail pre.response')).resolves.toBe('Surely 1 + 1 = \\boxed{3} since <b>bold</b>');
    expect(await tab.locator('.vt-detail b').count()).toBe(0);
    await tab.close();
  });

  it('verdict score --keep-response: the results carry the responses, in JSONL and Parquet, and the report shows them', async () => {
    const input = join(dir, 'kept.jsonl');
    writeFileSync(input, JSON.stringify({ id: 'k', verifier: 'qa', response: 'I pick \\boxed{B}', label: { choice: 'C' } }) + '\n');
    const results = join(dir, 'kept-results.jsonl');
    execFileSync('node', [CLI, 'score', input, '-o', results, '--workers', '0', '--keep-response']);
    expect(JSON.parse(readFileSync(results, 'utf8'))).toMatchObject({ id: 'k', reward: 0, response: 'I pick \\boxed{B}' });
    const parquet = join(dir, 'kept-results.parquet');
    execFileSync('node', [CLI, 'score', input, '-o', parquet, '--workers', '0', '--keep-response']);
    expect((await readParquet(parquet)).rows).toEqual([expect.objectContaining({ id: 'k', response: 'I pick \\boxed{B}' })]);
    const html = join(dir, 'kept.html');
    execFileSync('node', [CLI, 'report', results, '-o', html]);
    const tab = await browser.newPage();
    await tab.goto(`file://${html}`);
    await tab.waitForSelector('#app[data-ready=true]');
    await tab.focus('.vt-viewport');
    await tab.keyboard.press('ArrowDown');
    await tab.waitForSelector('.vt-detail pre.response');
    expect(await tab.textContent('.vt-detail mark')).toBe('B');
    await tab.close();
  });

  it('without --input the page says how to see responses; --input of another file says nothing matched', async () => {
    const input = join(dir, 'one.jsonl');
    writeFileSync(input, JSON.stringify({ id: 'x', verifier: 'math', response: '\\boxed{1}', label: { gold: '2' } }) + '\n');
    const results = join(dir, 'one-results.jsonl');
    execFileSync('node', [CLI, 'score', input, '-o', results, '--workers', '0']);
    const html = join(dir, 'plain.html');
    execFileSync('node', [CLI, 'report', results, '-o', html]);
    const tab = await browser.newPage();
    await tab.goto(`file://${html}`);
    await tab.waitForSelector('#app[data-ready=true]');
    await expect(tab.textContent('section[aria-label="Response lengths"] .note')).resolves.toMatch(/verdict report --input DATASET/);
    await tab.close();
    const other = join(dir, 'other.jsonl');
    writeFileSync(other, JSON.stringify({ id: 'y', prompt: 'no response here' }) + '\n');
    const warned = execFileSync('node', [CLI, 'report', results, '--input', other, '-o', join(dir, 'other.html')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(warned).toMatch(/\(1 results, 0 with their response\)/);
  });

  it('diff report: the two files in the title, what changed marked, no empty chart when nothing flipped', async () => {
    const row = (line: number, status: string, reward: number | null, reason: string) => ({
      id: `r${line}`, line, status, ...(reward === null ? {} : { reward }), reason, verifier: 'math', verifierVersion: '1', details: {}, receipt: { verifier: 'math@1', config: 'c', input: 'i' },
    });
    const before = join(dir, 'before.jsonl');
    const after = join(dir, 'after.jsonl');
    writeFileSync(before, [row(1, 'STATUS_OK', 0.5, 'partial'), row(2, 'STATUS_OK', 1, 'correct')].map((r) => JSON.stringify(r)).join('\n') + '\n');
    writeFileSync(after, [row(1, 'STATUS_ABORTED', null, 'sandbox_timeout'), row(2, 'STATUS_OK', 1, 'correct')].map((r) => JSON.stringify(r)).join('\n') + '\n');
    writeFileSync(join(dir, 'd.json'), execFileSync('node', [CLI, 'diff', before, after, '--json'], { encoding: 'utf8' }));
    execFileSync('node', [CLI, 'report', join(dir, 'd.json'), '-o', join(dir, 'd.html')]);
    const tab = await browser.newPage();
    await tab.goto(`file://${join(dir, 'd.html')}`);
    await tab.waitForSelector('#app[data-ready=true]');
    expect(await tab.textContent('h1')).toBe(`Diff: ${before} → ${after}`);
    // A 0.5 → ABORTED change flips no 0/1 reward: a sentence, not an empty chart.
    expect(await tab.textContent('.no-flips')).toBe('No reward flipped between 0 and 1.');
    expect(await tab.locator('[data-kind="verdict.diff"] svg').count()).toBe(0);
    expect(await tab.locator('.changes tr.changed').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-field')))).toEqual(['status', 'reward', 'reason']);
    expect(await tab.locator('.changes tr[data-field=status] mark').allTextContents()).toEqual(['STATUS_OK', 'STATUS_ABORTED']);
    expect(await tab.locator('.changes tr[data-field=verifierVersion] mark').count()).toBe(0);
    await tab.close();
  });

  it('audit report: each hack beside the label it got through', async () => {
    const input = join(dir, 'weak.jsonl');
    writeFileSync(input, JSON.stringify({ id: 'weak', verifier: 'if', response: 'Fine answer here.', label: { rubrics: [{ kind: 'constraint', id: 'punctuation:no_comma' }] } }) + '\n');
    // Exit 1: the label is gameable.
    expect(spawnSync('node', [CLI, 'audit', input, '-o', join(dir, 'a.json'), '--workers', '0']).status).toBe(1);
    execFileSync('node', [CLI, 'report', join(dir, 'a.json'), '-o', join(dir, 'a.html')]);
    const tab = await browser.newPage();
    await tab.goto(`file://${join(dir, 'a.html')}`);
    await tab.waitForSelector('#app[data-ready=true]');
    const labels = await tab.locator('[data-kind="verdict.audit"] pre.label').allTextContents();
    expect(labels.length).toBeGreaterThan(0);
    expect(new Set(labels)).toEqual(new Set(['{"rubrics":[{"id":"punctuation:no_comma","kind":"constraint"}]}']));
    await tab.close();
  });
});
