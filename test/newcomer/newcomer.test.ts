import path from 'node:path';
import { chromium } from 'playwright-core';
import { auditCoverage } from '../../audit/batteries';
import { checkCases } from '../../cli/check';
import { renderVerifiers } from '../../cli/commands';
import { Receipts } from '../../cli/receipt';
import type { VerifierCard } from '../../core/registry';
import { parseConfig } from '../../services/config';
import { packageRoot } from '../../services/paths';
import type { RunningServer } from '../../services/server';
import { startTestServer } from '../fixtures/server';
import { checkReceipts, smokeExamples } from '../fixtures/smoke';
import { createRegistry, NEWCOMER_VERIFIERS } from './registry';
import { tiny } from './tiny';

/**
 * The bar for "a verifier is one folder": test/newcomer/tiny/ (definition, example, cases)
 * plus one line in test/newcomer/registry.ts, and nothing else edited. Each surface sees it.
 */
describe('a pure verifier added as one folder and one registration line', () => {
  const registry = createRegistry();

  it('is listed by `verdict verifiers`, and by --json with its label schema, sections and example', () => {
    expect(renderVerifiers(registry, false)).toMatch(/^tiny +1\.0\.0 +test verifier: 1 when the response says label\.word/m);
    const cards = JSON.parse(renderVerifiers(registry, true)) as VerifierCard[];
    expect(cards.find((c) => c.name === 'tiny')).toEqual({
      name: 'tiny',
      version: '1.0.0',
      description: tiny.description,
      labelSchema: expect.objectContaining({ type: 'object', required: ['word'] }),
      sections: [],
      example: { label: { word: 'hello' }, response: 'hello, world', reward: 1 },
    });
  });

  it('is reported by `verdict audit` as a verifier no battery covers (its definition names none)', () => {
    const coverage = auditCoverage(registry.names().map((name) => registry.get(name)!));
    expect(coverage).toEqual({ uncovered: ['tiny'], unknown: [] });
  });

  it('gets receipts that name it and hash no config section (it declares none)', () => {
    const receipt = new Receipts(parseConfig({ sandbox: {} }), null, registry).of({ id: 'a', verifier: 'tiny', response: 'hi', label: { word: 'hi' }, groupId: '', responseTokens: 0, metadata: {} }, '1.0.0');
    expect(receipt['verifier']).toBe('tiny@1.0.0');
    checkReceipts(registry);
  });

  it('is checked by `verdict check`: the cases in its folder and, with --examples, its example', async () => {
    const folder = path.join(packageRoot(), 'test', 'newcomer', 'tiny');
    const { reports } = await checkCases([folder], { workers: 1, config: parseConfig({}), examples: true, verifiers: NEWCOMER_VERIFIERS });
    const mine = reports.filter((r) => r.id.startsWith('tiny'));
    expect(mine.map((r) => [r.id, r.passed, r.problems])).toEqual([
      ['tiny-says', true, []],
      ['tiny-silent', true, []],
      ['tiny-bad-label', true, []],
      ['tiny.example', true, []],
    ]);
  });

  it('passes the smoke test over every registered example', async () => {
    await smokeExamples(NEWCOMER_VERIFIERS);
  });

  describe('in the playground', () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startTestServer({ workers: 1, verifiers: NEWCOMER_VERIFIERS });
    });
    afterAll(() => server.shutdown());

    it('is offered by GET /v1/verifiers with the example the page fills in, which POST /v1/score rewards', async () => {
      const base = `http://127.0.0.1:${server.httpPort}`;
      const { verifiers } = (await (await fetch(`${base}/v1/verifiers`)).json()) as { verifiers: VerifierCard[] };
      const card = verifiers.find((v) => v.name === 'tiny')!;
      expect(card.example).toEqual(tiny.example);
      // What the page sends when "Score" is pressed on the filled example.
      const sample = { id: 'playground', verifier: 'tiny', response: card.example.response, label: card.example.label };
      const res = await fetch(`${base}/v1/score`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ samples: [sample] }) });
      const body = (await res.json()) as { results: Array<{ status: string; reward: number }> };
      expect(body.results[0]).toMatchObject({ status: 'STATUS_OK', reward: 1 });
    });

    it('is picked on the page (Debian\'s chromium), which fills in its example and scores it', async () => {
      const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
      try {
        const page = await browser.newPage();
        await page.goto(`http://127.0.0.1:${server.httpPort}/`);
        await page.waitForSelector('#verifier:not([disabled])');
        await page.selectOption('#verifier', 'tiny');
        expect(await page.inputValue('#response')).toBe('hello, world');
        await page.click('#score');
        await page.waitForSelector('#output .result');
        expect(await page.textContent('#output .status')).toBe('OK');
        expect(await page.textContent('#output .reward')).toBe('1');
      } finally {
        await browser.close();
      }
    });
  });
});
