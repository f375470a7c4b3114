import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import { PROTO_ROOT, SCORE_PROTO } from '../../services/grpc/proto';
import { packageRoot } from '../../services/paths';
import type { RunningServer } from '../../services/server';
import { startModelBackedServer, type ModelBackedServer } from '../fixtures/model-servers';
import { startTestServer } from '../fixtures/server';
import { ABORTING_VERIFIERS } from './aborting-registry';
import { CLIENT_DIR, PYTHON, runPython, unittestCase } from '../ops/python';

/**
 * The Python client and the trainer adapters, run by a real /usr/bin/python3 (Debian's python3-grpcio)
 * against real servers: replica A, whose `flaky` verifier always aborts, a healthy replica B, and C,
 * whose rlhf, if and search verifiers reach fake reward-model servers and a fake judge.
 */

function run(command: string, args: string[], env: Record<string, string>, cwd = CLIENT_DIR): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { PATH: process.env.PATH ?? '', PYTHONDONTWRITEBYTECODE: '1', ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'verdict-python-'));
}

describe('Python client against real servers', () => {
  let a: RunningServer;
  let b: RunningServer;
  let c: ModelBackedServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    expect(existsSync(PYTHON)).toBe(true);
    [a, b, c] = await Promise.all([
      startTestServer({ workers: 1, verifiers: ABORTING_VERIFIERS }),
      startTestServer({ workers: 1 }),
      startModelBackedServer(),
    ]);
    env = {
      VERDICT_TEST_GRPC_A: `127.0.0.1:${a.grpcPort}`,
      VERDICT_TEST_GRPC_B: `127.0.0.1:${b.grpcPort}`,
      VERDICT_TEST_HTTP_A: `http://127.0.0.1:${a.httpPort}`,
      VERDICT_TEST_HTTP_B: `http://127.0.0.1:${b.httpPort}`,
      VERDICT_TEST_GRPC_C: `127.0.0.1:${c.server.grpcPort}`,
      VERDICT_TEST_HTTP_C: `http://127.0.0.1:${c.server.httpPort}`,
    };
  });
  afterAll(async () => {
    await Promise.all([a?.shutdown(), b?.shutdown(), c?.close()]);
  });

  const unittest = (module: string) => unittestCase(module, () => env);

  it('sync and asyncio clients: mixed batch, group shaping, batching, stream summaries, ABORTED retry', unittest('tests.test_client'), 60_000);

  it('trainer protocols: OpenRLHF and slime over HTTP, slime and verl reward functions over gRPC', unittest('tests.test_trainers'), 60_000);

  it('rlhf, if and search from every trainer: string prompts of four templates, text trajectories', unittest('tests.test_every_verifier'), 60_000);

  it('a deadline: samples not reached come back ABORTED "deadline"', unittest('tests.test_deadline'), 60_000);

  it('the TRL reward function, called as GRPOTrainer calls it: OK rewards, ABORTED and INVALID as None', unittest('tests.test_trl'), 60_000);

  it('the committed stubs match proto/ field for field', async () => {
    const script = [
      'import json',
      'from google.protobuf import descriptor_pb2',
      'from verdict.v1 import score_pb2',
      'f = descriptor_pb2.FileDescriptorProto.FromString(score_pb2.DESCRIPTOR.serialized_pb)',
      'print(json.dumps({m.name: [[x.name, x.number, descriptor_pb2.FieldDescriptorProto.Type.Name(x.type)] for x in m.field] for m in f.message_type}))',
    ].join('\n');
    const { code, output } = await runPython(['-c', script], {});
    expect(code).toBe(0);
    const python = JSON.parse(output) as Record<string, unknown>;
    const definition = protoLoader.loadSync(SCORE_PROTO, { keepCase: true, includeDirs: [PROTO_ROOT] });
    const expected: Record<string, unknown> = {};
    for (const [name, entry] of Object.entries(definition)) {
      const type = (entry as { type?: { field?: Array<{ name: string; number: number; type: string }> } }).type;
      if (!name.startsWith('verdict.v1.') || !type?.field) continue;
      expected[name.slice('verdict.v1.'.length)] = type.field.map((f) => [f.name, f.number, f.type]);
    }
    expect(python).toEqual(expected);
  });

  it("the README's Python snippet runs as written, on the committed stubs", async () => {
    const readme = readFileSync(path.join(packageRoot(), 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Calling it from a Python trainer'));
    const snippet = /```python\n([\s\S]*?)```/.exec(section)?.[1];
    expect(snippet).toContain('grpc.insecure_channel("localhost:50051")');
    const script = [
      'responses = ["\\\\boxed{C}", "\\\\boxed{A}"]',
      snippet!.replace('localhost:50051', env.VERDICT_TEST_GRPC_B!),
      'print([(r.status, r.reward) for r in reply.results])',
    ].join('\n');
    const { code, output } = await runPython(['-c', script], {});
    expect({ code, output }).toEqual({ code: 0, output: '[(1, 1.0), (1, 0.0)]\n' });
  });

  it('generate.sh regenerates the committed stubs byte for byte with Debian protoc + grpc_python_plugin', async () => {
    const out = tempDir();
    try {
      const { code, output } = await run('sh', [path.join(CLIENT_DIR, 'generate.sh'), out], {});
      expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('generated') });
      for (const file of ['score_pb2.py', 'score_pb2.pyi', 'score_pb2_grpc.py']) {
        expect(readFileSync(path.join(out, 'verdict', 'v1', file), 'utf8')).toBe(readFileSync(path.join(CLIENT_DIR, 'verdict', 'v1', file), 'utf8'));
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);

  it("the package is clean under Debian's mypy (strict, as pyproject.toml configures it)", async () => {
    const cache = tempDir();
    try {
      const { code, output } = await run(PYTHON, ['-m', 'mypy', '--cache-dir', cache], {});
      expect({ code, output }).toEqual({ code: 0, output: expect.stringMatching(/^Success: no issues found/m) });
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  }, 120_000);

  it('pip install ./clients/python gives a typed, working package (offline: Debian setuptools, no build isolation)', async () => {
    const work = tempDir();
    try {
      // A copy, so the in-tree build leaves nothing behind in clients/python.
      const source = path.join(work, 'src');
      cpSync(CLIENT_DIR, source, { recursive: true, filter: (p) => !p.includes(`${path.sep}tests`) && !p.includes('__pycache__') });
      const venv = path.join(work, 'venv');
      expect(await run(PYTHON, ['-m', 'venv', '--system-site-packages', venv], {}, work)).toMatchObject({ code: 0 });
      const pip = await run(path.join(venv, 'bin', 'pip'), ['install', '--no-build-isolation', '--no-index', '--no-deps', source], {}, work);
      expect(pip).toMatchObject({ code: 0, output: expect.stringContaining('Successfully installed verdict-client-') });
      const [site] = readdirSync(path.join(venv, 'lib')).map((v) => path.join(venv, 'lib', v, 'site-packages'));
      expect(existsSync(path.join(site!, 'verdict_client', 'py.typed'))).toBe(true);
      expect(existsSync(path.join(site!, 'verdict', 'v1', 'score_pb2.pyi'))).toBe(true);
      const script = [
        'import verdict_client',
        'from verdict_client import VerdictClient, Sample',
        `with VerdictClient(${JSON.stringify(env.VERDICT_TEST_GRPC_B)}) as client:`,
        '    result = client.score([Sample(verifier="qa", response="\\\\boxed{C}", label={"choice": "C"})]).results[0]',
        'print(verdict_client.__file__.startswith(' + JSON.stringify(site) + '), result.status, repr(result.reward))',
      ].join('\n');
      const used = await run(path.join(venv, 'bin', 'python'), ['-c', script], {}, '/');
      expect(used).toEqual({ code: 0, output: 'True OK 1.0\n' });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 120_000);
});
