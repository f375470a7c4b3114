import { spawn } from 'node:child_process';
import { readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { AuthSetupError, loadToken } from '../../services/auth';
import { ScorerClient } from '../../services/grpc/client';
import { packageRoot } from '../../services/paths';
import type { RunningServer } from '../../services/server';
import { runCli, VERDICT_BIN } from '../fixtures/cli';
import { startTestServer } from '../fixtures/server';
import { sample } from '../fixtures/samples';
import { healthCheck, rawScore } from './helpers';

const TOKEN = 's3cret-token';
const TLS_DIR = path.join(packageRoot(), 'test', 'ops', 'tls');
const pem = (name: string) => readFileSync(path.join(TLS_DIR, name));
const qa = () => [sample({ id: 'q', verifier: 'qa', response: '\\boxed{C}', label: { choice: 'C' } })];

describe('bearer token on gRPC and HTTP', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ workers: 1, authToken: TOKEN });
  });
  afterAll(() => server.shutdown());
  const grpcAddress = () => `127.0.0.1:${server.grpcPort}`;
  const http = (route: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${server.httpPort}${route}`, init);

  it('gRPC: no token or a wrong one is UNAUTHENTICATED; the right one scores', async () => {
    const none = await rawScore(grpcAddress(), qa());
    expect(none.error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(none.error?.details).toMatch(/missing bearer token/);
    const wrong = await rawScore(grpcAddress(), qa(), new grpc.Metadata(), { token: 'nope' });
    expect(wrong.error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(wrong.error?.details).toBe('wrong bearer token');
    const client = new ScorerClient(grpcAddress(), { token: TOKEN });
    const anonymous = new ScorerClient(grpcAddress());
    try {
      const { results } = await client.score(qa());
      expect(results.map((r) => [r.status, r.reward])).toEqual([['OK', 1]]);
      await expect(anonymous.listVerifiers()).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    } finally {
      client.close();
      anonymous.close();
    }
  });

  it('gRPC: health is open without a token', async () => {
    expect(await healthCheck(grpcAddress())).toEqual({ status: 'SERVING' });
  });

  it('HTTP: 401 without the token on scoring and /metrics; /healthz is open', async () => {
    const body = JSON.stringify({ samples: qa() });
    const headers = { 'content-type': 'application/json' };
    const refused = await http('/v1/score', { method: 'POST', headers, body });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect(await refused.json()).toEqual({ error: { code: 'UNAUTHENTICATED', message: expect.stringMatching(/missing bearer token/) } });
    expect((await http('/metrics')).status).toBe(401);
    expect((await http('/v1/score', { method: 'POST', headers: { ...headers, authorization: 'Bearer wrong' }, body })).status).toBe(401);

    const scored = await http('/v1/score', { method: 'POST', headers: { ...headers, authorization: `bearer ${TOKEN}` }, body });
    expect(scored.status).toBe(200);
    expect(((await scored.json()) as { results: Array<{ reward: number }> }).results[0]!.reward).toBe(1);
    expect((await http('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect((await http('/healthz')).status).toBe(200);
  });
});

describe('the token source', () => {
  it('a token file wins over VERDICT_AUTH_TOKEN; an empty or missing file is an error naming the option', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'verdict-token-'));
    const file = path.join(dir, 'token');
    writeFileSync(file, `${TOKEN}\n`);
    expect(loadToken({ file, env: { VERDICT_AUTH_TOKEN: 'other' } })).toBe(TOKEN);
    expect(loadToken({ env: { VERDICT_AUTH_TOKEN: ' from-env ' } })).toBe('from-env');
    expect(loadToken({ env: {} })).toBeNull();
    writeFileSync(file, '\n');
    expect(() => loadToken({ file })).toThrow(new AuthSetupError(`--auth-token-file ${file}: the file is empty`));
    expect(() => loadToken({ file: path.join(dir, 'absent') })).toThrow(/--auth-token-file .*absent: cannot read/);
  });
});

describe('gRPC over TLS', () => {
  it('server TLS: a client trusting the CA scores; a plaintext client cannot', async () => {
    const server = await startTestServer({
      workers: 1,
      httpPort: null,
      tls: { certFile: path.join(TLS_DIR, 'server.pem'), keyFile: path.join(TLS_DIR, 'server.key') },
    });
    const address = `localhost:${server.grpcPort}`;
    try {
      const reply = await rawScore(address, qa(), new grpc.Metadata(), { tls: { ca: pem('ca.pem') } });
      expect(reply.error).toBeNull();
      expect(reply.response?.results?.map((r) => r.status)).toEqual(['OK']);
      const plain = await rawScore(address, qa());
      expect(plain.error?.code).toBe(grpc.status.UNAVAILABLE);
    } finally {
      await server.shutdown();
    }
  });

  it('mutual TLS with a token: only a client with a certificate the CA signed, and the token, scores', async () => {
    const server = await startTestServer({
      workers: 1,
      httpPort: null,
      authToken: TOKEN,
      tls: { certFile: path.join(TLS_DIR, 'server.pem'), keyFile: path.join(TLS_DIR, 'server.key'), clientCaFile: path.join(TLS_DIR, 'ca.pem') },
    });
    const address = `localhost:${server.grpcPort}`;
    try {
      const full = { ca: pem('ca.pem'), cert: pem('client.pem'), key: pem('client.key') };
      const ok = await rawScore(address, qa(), new grpc.Metadata(), { tls: full, token: TOKEN });
      expect(ok.error).toBeNull();
      const noCert = await rawScore(address, qa(), new grpc.Metadata(), { tls: { ca: pem('ca.pem') }, token: TOKEN });
      expect(noCert.error?.code).toBe(grpc.status.UNAVAILABLE);
      const noToken = await rawScore(address, qa(), new grpc.Metadata(), { tls: full });
      expect(noToken.error?.code).toBe(grpc.status.UNAUTHENTICATED);
    } finally {
      await server.shutdown();
    }
  });
});

describe('verdict serve exposure defaults', () => {
  it('listens on loopback unless --host is given', async () => {
    const child = spawn(process.execPath, [VERDICT_BIN, 'serve', '--port', '0', '--http-port', '0', '--workers', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const start = await new Promise<Record<string, unknown>>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n').find((l) => l.includes('"serving:'));
        if (line) resolve(JSON.parse(line) as Record<string, unknown>);
      });
      child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    expect(start).toMatchObject({ host: '127.0.0.1', auth: 'none' });
  });

  it('--tls-cert without --tls-key is refused before anything listens', async () => {
    const run = await runCli(['serve', '--port', '0', '--no-http', '--tls-cert', path.join(TLS_DIR, 'server.pem')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/verdict: auth: --tls-cert and --tls-key go together/);
  });

  it('--version prints the package version', async () => {
    const run = await runCli(['--version']);
    const { version } = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(version);
  });
});
