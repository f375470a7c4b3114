import { spawn } from 'node:child_process';
import path from 'node:path';
import { harnessDir } from '../../services/sandbox/pool';

/**
 * The harness package's own pytest suite (services/sandbox/harness/tests: the stdout rule, the value
 * wire and its bounds, stream plans, a real run child and zygote start), run by Debian's python3 and
 * python3-pytest, so that `npm test` runs it.
 */
it('harness package: pytest passes', async () => {
  const root = path.dirname(harnessDir());
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn('/usr/bin/python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', PYTHONDONTWRITEBYTECODE: '1' },
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ code: status, output: text }));
  });
  if (code !== 0) throw new Error(`pytest failed (exit ${code}):\n${output}`);
  expect(output).toMatch(/\d+ passed/);
  expect(output).not.toMatch(/skipped|error/i);
});
