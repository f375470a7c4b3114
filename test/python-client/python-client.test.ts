import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import { PROTO_ROOT, SCORE_PROTO } from '../../services/grpc/proto';
import { packageRoot } from '../../services/paths';
import type { RunningServer } from '../../services/server';
import { startTestServer } from '../fixtures/server';
import { ABORTING_VERIFIERS } from './aborting-registry';

/**
 * The Python client and the trainer adapters, run by a real /usr/bin/python3 (Debian's python3-grpcio)
 * against two real servers: replica A, whose `flaky` verifier always aborts, and a healthy replica B.
 */
const PYTHON = '/usr/bin/python3';
const CLIENT_DIR = path.join(packageRoot(), 'clients', 'python');

function runPython(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, args, {
      cwd: CLIENT_DIR,
      env: { PATH: process.env.PATH ?? '', PYTHONPATH: CLIENT_DIR, PYTHONDONTWRITEBYTECODE: '1', ...env },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('Python client against real servers', () => {
  let a: RunningServer;
  let b: RunningServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    expect(existsSync(PYTHON)).toBe(true);
    [a, b] = await Promise.all([
      startTestServer({ workers: 1, verifiers: ABORTING_VERIFIERS }),
      startTestServer({ workers: 1 }),
    ]);
    env = {
      VERDICT_TEST_GRPC_A: `127.0.0.1:${a.grpcPort}`,
      VERDICT_TEST_GRPC_B: `127.0.0.1:${b.grpcPort}`,
      VERDICT_TEST_HTTP_A: `http://127.0.0.1:${a.httpPort}`,
      VERDICT_TEST_HTTP_B: `http://127.0.0.1:${b.httpPort}`,
    };
  });
  afterAll(async () => {
    await Promise.all([a?.shutdown(), b?.shutdown()]);
  });

  const unittest = (module: string) => async () => {
    const { code, output } = await runPython(['-m', 'unittest', '-v', module], env);
    if (code !== 0) throw new Error(`python ${module} failed (exit ${code}):\n${output}`);
    expect(output).not.toMatch(/\.\.\. skipped|skipped=\d/);
    expect(output).toMatch(/\nOK\s*$/);
  };

  it('sync and asyncio clients: mixed batch, group shaping, batching, stream summaries, ABORTED retry', unittest('tests.test_client'), 60_000);

  it('trainer protocols: OpenRLHF and slime over HTTP, slime and verl reward functions over gRPC', unittest('tests.test_trainers'), 60_000);

  it('a deadline: samples not reached come back ABORTED "deadline"', unittest('tests.test_deadline'), 60_000);

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
});
