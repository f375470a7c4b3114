import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../services/paths';

/** `verdict doctor`, run as a user runs it: real checks of this machine, exit status and findings. */
function doctor(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(packageRoot(), 'bin', 'verdict.js'), 'doctor', ...args], { timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe('verdict doctor', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'verdict-doctor-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('passes where the sandbox runs (this machine), having run a program in it', async () => {
    const { code, output } = await doctor(['--json']);
    const findings = JSON.parse(output) as Array<{ check: string; status: string; detail: string }>;
    expect(findings.filter((f) => f.status === 'fail')).toEqual([]);
    expect(findings.map((f) => f.check)).toEqual(
      expect.arrayContaining(['mode', 'python', 'bwrap', 'user namespaces', 'bwrap sandbox', 'cgroups', 'limits', 'run']),
    );
    expect(code).toBe(0);
  });

  it('names what is missing and exits 1 when the sandbox cannot work', async () => {
    const config = path.join(dir, 'verdict.json');
    writeFileSync(config, JSON.stringify({ sandbox: { bwrap: '/nonexistent/bwrap', python: '/nonexistent/python3' } }));
    const { code, output } = await doctor(['--config', config]);
    expect(code).toBe(1);
    expect(output).toMatch(/fail\s+python\s+sandbox\.python: \/nonexistent\/python3 does not exist/);
    expect(output).toMatch(/fail\s+bwrap\s+sandbox\.bwrap: \/nonexistent\/bwrap is missing/);
    expect(output).toMatch(/the sandbox cannot run here: 2 check\(s\) failed/);
  });
});
