import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../services/paths';

const ROOT = packageRoot();
const DEPCRUISE = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

/** Runs the project's dependency rule (`npm run lint:deps`'s config) over the folders of `dir`. */
function lintDeps(dir: string, folders: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [DEPCRUISE, ...folders, '--config', path.join(ROOT, '.dependency-cruiser.js')],
      { cwd: dir },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

function write(dir: string, file: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

describe('the dependency rule of npm test', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'verdict-deps-'));
    write(dir, 'tsconfig.json', '{"compilerOptions": {"module": "commonjs", "strict": true}}\n');
    write(dir, 'services/client.ts', 'export const client = 1;\n');
    write(dir, 'core/port.ts', "import { client } from '../services/client';\nexport const port = client;\n");
    write(dir, 'verifiers/a.ts', "import { b } from './b';\nexport const a = (): number => b();\n");
    write(dir, 'verifiers/b.ts', "import { a } from './a';\nexport const b = (): number => a();\n");
    write(dir, 'rubrics/ok.ts', "export const ok = 1;\n");
    write(dir, 'services/server.ts', 'export const startServer = (): number => 1;\n');
    write(dir, 'cli/main.ts', "import { startServer } from '../services/server';\nexport const serve = startServer;\n");
    write(dir, 'cli/lazy.ts', "export const serve = async (): Promise<number> => (await import('../services/server')).startServer();\n");
    write(dir, 'rubrics/ok.test.ts', "import { ok } from './ok';\nimport { inputs } from '../test/pure/inputs';\nexport const seen = ok + inputs;\n");
    write(dir, 'test/pure/inputs.ts', "export const inputs = 1;\n");
    write(dir, 'test/fakes/server.ts', "export const server = 1;\n");
    write(dir, 'curate/faked.test.ts', "import { server } from '../test/fakes/server';\nexport const seen = server;\n");
    write(dir, 'curate/pure.test.ts', "import { client } from '../services/client';\nexport const seen = client;\n");
    write(dir, 'cli/ships.ts', "import { seen } from '../rubrics/ok.test';\nexport const shipped = seen;\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fails on a domain module importing services/ and on an import cycle, naming both', async () => {
    const { code, output } = await lintDeps(dir, ['core', 'verifiers', 'rubrics', 'services']);
    expect(code).not.toBe(0);
    expect(output).toMatch(/domain-imports-no-io: core\/port\.ts → services\/client\.ts/);
    expect(output).toMatch(/no-cycles: verifiers\/a\.ts →/);
  });

  it('lets the CLI load the serving stack by dynamic import only', async () => {
    const { code, output } = await lintDeps(dir, ['cli', 'services']);
    expect(code).not.toBe(0);
    expect(output).toMatch(/serving-stack-loads-for-serve: cli\/main\.ts → services\/server\.ts/);
    expect(output).not.toMatch(/cli\/lazy\.ts/);
  });

  it('holds a test beside domain code to the domain rule, and fails code that ships importing a test', async () => {
    const { code, output } = await lintDeps(dir, ['curate', 'cli', 'rubrics', 'services', 'test']);
    expect(code).not.toBe(0);
    expect(output).toMatch(/domain-imports-no-io: curate\/pure\.test\.ts → services\/client\.ts/);
    expect(output).toMatch(/domain-tests-import-pure-helpers: curate\/faked\.test\.ts → test\/fakes\/server\.ts/);
    expect(output).toMatch(/production-imports-no-test: cli\/ships\.ts → rubrics\/ok\.test\.ts/);
  });

  it('passes a domain that keeps to itself, with a test beside its module that uses a pure helper', async () => {
    const { code, output } = await lintDeps(dir, ['rubrics', 'services', 'test']);
    expect(output).toMatch(/no dependency violations/);
    expect(code).toBe(0);
  });
});
