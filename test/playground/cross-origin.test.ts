import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import type { RunningServer } from '../../services/server';
import { startTestServer } from '../fixtures/server';

/**
 * Cross-site request forgery against a server without a token: a page of another origin, open in
 * a real browser (Debian chromium through playwright-core) on the same host, must not get samples
 * scored; the server's own page and an origin the operator allowed may.
 */
const CHROMIUM = '/usr/bin/chromium';

const BATCH = JSON.stringify({ samples: [{ id: 'x', verifier: 'qa', response: '\\boxed{A}', label: { choice: 'A' } }] });

/** Samples the server has scored, from its own Prometheus counter. */
async function scoredSoFar(server: RunningServer): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${server.httpPort}/metrics`)).text();
  return [...text.matchAll(/^verdict_samples_total\{[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** A page server on another port, hence another origin: the page that tries its luck. */
function pageServer(html: string): Promise<Server> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const portOf = (server: Server) => (server.address() as AddressInfo).port;

/** A raw request with the headers a test chooses (fetch may not set Host). */
function raw(port: number, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/score', method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('an HTTP server without a token refuses other origins', () => {
  let browser: Browser;
  let victim: RunningServer;
  let allowing: RunningServer;
  let evil: Server;
  let evilOrigin: string;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM });
    evil = await pageServer('<!doctype html><title>another site</title><iframe name="sink"></iframe>');
    evilOrigin = `http://127.0.0.1:${portOf(evil)}`;
    victim = await startTestServer({ workers: 0 });
    allowing = await startTestServer({ workers: 0, allowOrigins: [evilOrigin] });
  });
  afterAll(async () => {
    await browser.close();
    await Promise.all([victim.shutdown(), allowing.shutdown(), new Promise((resolve) => evil.close(resolve))]);
  });

  it('a page of another origin gets nothing scored: not by a text/plain fetch, not by a form', async () => {
    const target = `http://127.0.0.1:${victim.httpPort}/v1/score`;
    const before = await scoredSoFar(victim);
    const page = await browser.newPage();
    await page.goto(evilOrigin);
    // Both are "simple" requests a browser sends without asking the server first.
    await page.evaluate(`fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(BATCH)} })`);
    const responded = page.waitForEvent('response', (r) => r.url() === target);
    await page.evaluate(`(() => {
      const form = document.createElement('form');
      form.method = 'POST';
      form.enctype = 'text/plain';
      form.target = 'sink';
      form.action = ${JSON.stringify(target)};
      const input = document.createElement('input');
      input.name = ${JSON.stringify(BATCH.slice(0, -2))};
      input.value = '}}';
      form.appendChild(input);
      document.body.appendChild(form);
      form.submit();
    })()`);
    expect((await responded).status()).toBe(403);
    // A JSON fetch is preflighted, and the server answers no preflight for this origin.
    const json = await page.evaluate(`fetch(${JSON.stringify(target)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(BATCH)} }).then(() => 'answered', (e) => 'blocked: ' + e.message)`);
    expect(json).toMatch(/^blocked/);
    await page.close();
    expect(await scoredSoFar(victim)).toBe(before);
  });

  it('the server\'s own page scores, by address or as localhost', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const page = await browser.newPage();
      await page.goto(`http://${host}:${victim.httpPort}/`);
      const reply = (await page.evaluate(
        `fetch('/v1/score', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(BATCH)} }).then(async (r) => [r.status, await r.json()])`,
      )) as [number, { results: Array<{ status: string }> }];
      expect(reply[0]).toBe(200);
      expect(reply[1].results[0]!.status).toBe('STATUS_OK');
      await page.close();
    }
  });

  it('an origin the operator allowed (--allow-origin) calls the API from its page', async () => {
    const page = await browser.newPage();
    await page.goto(evilOrigin);
    const reply = (await page.evaluate(
      `fetch('http://127.0.0.1:${allowing.httpPort}/v1/score', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(BATCH)} }).then(async (r) => [r.status, await r.json()])`,
    )) as [number, { results: Array<{ status: string; reward: number }> }];
    expect(reply).toEqual([200, { results: [expect.objectContaining({ status: 'STATUS_OK', reward: 1 })], groups: [] }]);
    await page.close();
  });

  it('a DNS-rebound name is not the server\'s own origin, even when Host agrees with Origin', async () => {
    const port = victim.httpPort!;
    const rebound = await raw(port, { origin: `http://attacker.example:${port}`, host: `attacker.example:${port}`, 'content-type': 'application/json' }, BATCH);
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toEqual({ error: { code: 'PERMISSION_DENIED', message: expect.stringMatching(/--allow-origin http:\/\/attacker\.example/) } });
  });

  it('a body without a JSON content type is refused (415) naming the header to send; clients without Origin pass', async () => {
    const port = victim.httpPort!;
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
      const reply = await raw(port, type === undefined ? {} : { 'content-type': type }, BATCH);
      expect(reply.status).toBe(415);
      expect(JSON.parse(reply.body).error.message).toMatch(/Content-Type: application\/json/);
    }
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/vnd.verdict+json']) {
      expect((await raw(port, { 'content-type': type }, BATCH)).status).toBe(200);
    }
  });
});
