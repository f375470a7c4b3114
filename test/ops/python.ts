import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../services/paths';

/** Debian's python3 with python3-grpcio and python3-grpc-tools, as CI installs them. */
export const PYTHON = '/usr/bin/python3';
export const CLIENT_DIR = path.join(packageRoot(), 'clients', 'python');
/** Python scripts of these tests stay in the source tree: tsc copies only TypeScript to dist/. */
export const OPS_TEST_DIR = path.join(packageRoot(), 'test', 'ops');

export function runPython(args: string[], env: Record<string, string> = {}, cwd = CLIENT_DIR): Promise<{ code: number | null; output: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, args, {
      cwd,
      env: { PATH: process.env.PATH ?? '', PYTHONPATH: CLIENT_DIR, PYTHONDONTWRITEBYTECODE: '1', ...env },
    });
    let output = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output, stdout }));
  });
}

/**
 * A jest case that runs one Python unittest module (`python3 -m unittest -v`, from `cwd`) with the
 * environment `env()` gives when it runs (servers start in beforeAll), and asks that every test ran
 * and passed: a skipped one fails it too.
 */
export function unittestCase(module: string, env: () => Record<string, string>, cwd = CLIENT_DIR): () => Promise<void> {
  return async () => {
    const { code, output } = await runPython(['-m', 'unittest', '-v', module], env(), cwd);
    if (code !== 0) throw new Error(`python ${module} failed (exit ${code}):\n${output}`);
    expect(output).not.toMatch(/\.\.\. skipped|skipped=\d/);
    expect(output).toMatch(/\nOK\s*$/);
  };
}

/**
 * The reflection protocol as a FileDescriptorSet, compiled by protoc (python3-grpc-tools) from the
 * reflection.proto that @grpc/reflection ships: what a reflection client must know beforehand.
 */
export async function reflectionDescriptorSet(): Promise<string> {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'verdict-reflection-')), 'reflection.pb');
  const root = path.join(path.dirname(require.resolve('@grpc/reflection')), '..', 'proto');
  const run = await runPython(['-m', 'grpc_tools.protoc', '-I', root, `--descriptor_set_out=${out}`, '--include_imports', 'grpc/reflection/v1/reflection.proto']);
  if (run.code !== 0) throw new Error(`protoc failed: ${run.output}`);
  return out;
}
