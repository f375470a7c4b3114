import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { serveCli } from '../fixtures/cli';
import { packageRoot } from '../../services/paths';
import { checkpointLine, jsonl, qaRows, readJsonl, runCli, startScore, until, type Row } from './helpers';

const dir = mkdtempSync(path.join(tmpdir(), 'verdict-server-'));
const file = (name: string) => path.join(dir, name);

/** Samples a replica has scored, from its Prometheus metrics. */
async function scoredBy(httpPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
  let total = 0;
  for (const m of text.matchAll(/^verdict_samples_total\{[^}]*\} (\d+)/gm)) total += Number(m[1]);
  return total;
}

const withoutConfigHash = (r: Row) => ({ ...r, receipt: { ...(r.receipt as Row), config: null } });

describe('verdict score --server (two local replicas)', () => {
  const replicas: Array<{ child: ChildProcess; grpcPort: number; httpPort: number }> = [];
  const input = file('in.jsonl');
  const N = 3000;

  beforeAll(async () => {
    replicas.push(await serveCli(['--workers', '1']), await serveCli(['--workers', '1']));
    writeFileSync(input, jsonl(qaRows(N, (i) => ({ response: `${'step. '.repeat(100)}\\boxed{${'ABCD'[i % 4]}}` }))));
    const local = await runCli(['score', input, '-o', file('local.jsonl'), '--workers', '1', '--batch-size', '100']);
    expect(local.code).toBe(0);
  });

  afterAll(() => {
    for (const r of replicas) r.child.kill('SIGKILL');
  });

  it('gives the same results as in-process scoring, balanced over both replicas', async () => {
    const targets = replicas.map((r) => `127.0.0.1:${r.grpcPort}`).join(',');
    const run = await runCli(['score', input, '-o', file('remote.jsonl'), '--server', targets, '--batch-size', '100']);
    expect(run.code).toBe(0);
    expect(readJsonl(file('remote.jsonl')).map(withoutConfigHash)).toEqual(readJsonl(file('local.jsonl')).map(withoutConfigHash));
    const counts = await Promise.all(replicas.map((r) => scoredBy(r.httpPort)));
    expect(counts[0]! + counts[1]!).toBe(N);
    expect(counts[0]!).toBeGreaterThan(0);
    expect(counts[1]!).toBeGreaterThan(0);
  });

  it('moves the batches of a replica that dies to the other: no sample lost or doubled', async () => {
    const targets = replicas.map((r) => `127.0.0.1:${r.grpcPort}`).join(',');
    const output = file('failover.jsonl');
    const run = startScore([input, '-o', output, '--server', targets, '--batch-size', '50']);
    let exited = false;
    void run.done.then(() => (exited = true));
    await until(() => exited || checkpointLine(output) >= 300, 'first batches');
    replicas[0]!.child.kill('SIGKILL');
    const finished = await run.done;
    expect(finished.code).toBe(0);
    const results = readJsonl(output);
    expect(results.map((r) => r.line)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    expect(results.every((r) => r.status === 'STATUS_OK')).toBe(true);
    expect(results.map(withoutConfigHash)).toEqual(readJsonl(file('local.jsonl')).map(withoutConfigHash));
  });

  it('dns:///name:port sends to every address the name resolves to (those not listening are skipped)', async () => {
    const alive = replicas[1]!;
    const run = await runCli(['score', input, '-o', file('dns.jsonl'), '--server', `dns:///localhost:${alive.grpcPort}`, '--batch-size', '500']);
    expect(run.code).toBe(0);
    expect(readJsonl(file('dns.jsonl')).map(withoutConfigHash)).toEqual(readJsonl(file('local.jsonl')).map(withoutConfigHash));
  });

  it('a bad --server is a usage error', async () => {
    const run = await runCli(['score', input, '--server', 'localhost']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--server: "localhost" is not host:port/);
  });
});

describe('verdict score --server to a replica that wants a token and mutual TLS', () => {
  const tls = path.join(packageRoot(), 'test', 'ops', 'tls');
  const tokenFile = file('token');
  const input = file('auth-in.jsonl');
  let replica: { child: ChildProcess; grpcPort: number };

  beforeAll(async () => {
    writeFileSync(tokenFile, 's3cret\n');
    writeFileSync(input, jsonl(qaRows(40)));
    replica = await serveCli([
      '--workers', '1', '--auth-token-file', tokenFile,
      '--tls-cert', path.join(tls, 'server.pem'), '--tls-key', path.join(tls, 'server.key'), '--tls-client-ca', path.join(tls, 'ca.pem'),
    ]);
  });
  afterAll(() => replica.child.kill('SIGKILL'));

  const server = () => ['--server', `localhost:${replica.grpcPort}`];
  const mtls = ['--tls-ca', path.join(tls, 'ca.pem'), '--tls-cert', path.join(tls, 'client.pem'), '--tls-key', path.join(tls, 'client.key')];

  it('scores with the token (file or $VERDICT_AUTH_TOKEN) and the client certificate', async () => {
    const run = await runCli(['score', input, '-o', file('auth.jsonl'), ...server(), '--auth-token-file', tokenFile, ...mtls]);
    expect(run.code).toBe(0);
    expect(readJsonl(file('auth.jsonl')).map((r) => r.status)).toEqual(Array(40).fill('STATUS_OK'));
    const viaEnv = await runCli(['score', input, '-o', file('auth-env.jsonl'), ...server(), ...mtls], { env: { VERDICT_AUTH_TOKEN: 's3cret' } });
    expect(viaEnv.code).toBe(0);
  });

  it('without the token: a clear error and exit 2; without TLS the replica is unreachable: ABORTED rows and exit 1', async () => {
    const noToken = await runCli(['score', input, '-o', file('no-token.jsonl'), ...server(), ...mtls]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/UNAUTHENTICATED/);
    // A plaintext client cannot reach a TLS replica at all (UNAVAILABLE, as a replica that is down):
    // the batches come back ABORTED for --retry-aborted, and the run fails.
    const noTls = await runCli(['score', input, '-o', file('no-tls.jsonl'), ...server(), '--auth-token-file', tokenFile]);
    expect(noTls.code).toBe(1);
    expect(new Set(readJsonl(file('no-tls.jsonl')).map((r) => `${r.status} ${r.reason}`))).toEqual(new Set(['STATUS_ABORTED unavailable']));
  });

  it('refuses options that do not go together, naming them', async () => {
    const orphan = await runCli(['score', input, '-o', file('x.jsonl'), '--tls-ca', path.join(tls, 'ca.pem')]);
    expect(orphan.code).toBe(2);
    expect(orphan.stderr).toMatch(/--tls-ca: only with --server/);
    const half = await runCli(['score', input, '-o', file('x.jsonl'), ...server(), '--tls-ca', path.join(tls, 'ca.pem'), '--tls-cert', path.join(tls, 'client.pem')]);
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/--tls-cert and --tls-key go together/);
  });
});
