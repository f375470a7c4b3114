import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { packageRoot } from '../../services/paths';
import type { RunningServer } from '../../services/server';
import { serveCli } from '../fixtures/cli';
import { startTestServer } from '../fixtures/server';
import { runPython } from './python';

const TLS_DIR = path.join(packageRoot(), 'test', 'ops', 'tls');

/**
 * Three `verdict serve` processes on loopback, driven by the Python client (Debian's python3-grpcio):
 * one SIGKILLed mid-batch, one sent SIGTERM during a stream. The Python side
 * (clients/python/tests/test_replicas.py) asserts every sample gets exactly one result.
 */
describe('replicas: balancing and failover with the Python client', () => {
  const replicas: Record<'A' | 'B' | 'C', { child: ChildProcess; grpcPort: number; httpPort: number; exited: Promise<{ code: number | null; signal: string | null }> }> =
    {} as never;
  let tokenServer: RunningServer;
  let env: Record<string, string> = {};

  beforeAll(async () => {
    for (const name of ['A', 'B', 'C'] as const) {
      const started = await serveCli(['--workers', '1', '--drain-ms', '60000']);
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
        started.child.on('exit', (code, signal) => resolve({ code, signal })),
      );
      replicas[name] = { ...started, exited };
      env[`VERDICT_TEST_${name}_GRPC`] = `127.0.0.1:${started.grpcPort}`;
      env[`VERDICT_TEST_${name}_HTTP`] = `http://127.0.0.1:${started.httpPort}`;
      env[`VERDICT_TEST_${name}_PID`] = String(started.child.pid);
    }
    tokenServer = await startTestServer({
      workers: 1,
      httpPort: null,
      authToken: 'replica-token',
      tls: { certFile: path.join(TLS_DIR, 'server.pem'), keyFile: path.join(TLS_DIR, 'server.key') },
    });
    env = {
      ...env,
      VERDICT_TEST_TOKEN_GRPC: `localhost:${tokenServer.grpcPort}`,
      VERDICT_TEST_TOKEN: 'replica-token',
      VERDICT_TEST_TLS_CA: path.join(TLS_DIR, 'ca.pem'),
    };
  }, 60_000);

  afterAll(async () => {
    for (const { child, exited } of Object.values(replicas)) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    }
    await tokenServer?.shutdown();
  });

  const unittest = async (test: string) => {
    const { code, output } = await runPython(['-m', 'unittest', '-v', `tests.test_replicas.${test}`], env);
    if (code !== 0) throw new Error(`python ${test} failed (exit ${code}):\n${output}`);
    expect(output).not.toMatch(/skipped/);
    expect(output).toMatch(/\nOK\s*$/);
  };

  it('targets: lists, dns:/// names, refresh', () => unittest('ResolveTest'), 60_000);

  it('a replica SIGKILLed mid-batch: every sample gets exactly one result, none lost', async () => {
    await unittest('SigkillTest');
    expect(await replicas.C.exited).toEqual({ code: null, signal: 'SIGKILL' });
  }, 180_000);

  it('SIGTERM during a stream: NOT_SERVING, the stream finishes, new calls UNAVAILABLE, the client moves on; exit 0', async () => {
    await unittest('SigtermTest');
    expect(await replicas.A.exited).toEqual({ code: 0, signal: null });
  }, 180_000);

  it('the sync and asyncio clients send the bearer token over TLS', () => unittest('TokenTest'), 60_000);
});
