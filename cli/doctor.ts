import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { type SandboxConfigSection, sandboxConfigSection } from '../services/sandbox';
import { identityArgs, isolationArgs } from '../services/sandbox/bwrap';
import { detectCgroups } from '../services/sandbox/cgroup';
import { resolveMode, Sandbox } from '../services/sandbox/pool';

/** One finding: `fail` means the sandbox cannot work as configured; `warn` that it works with less. */
export interface Finding {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

function run(file: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}`.trim() });
    });
  });
}

function readNumber(file: string): number | null {
  try {
    return Number(readFileSync(file, 'utf8').trim());
  } catch {
    return null;
  }
}

/** The soft limit of one row of /proc/self/limits ("Max processes", "Max open files"). */
function softLimit(row: string): string {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith(row));
    return line?.slice(row.length).trim().split(/\s+/)[0] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Checks this host or pod for what the sandbox needs, in the order a newcomer would fix them. */
export async function diagnose(config: SandboxConfigSection): Promise<Finding[]> {
  const findings: Finding[] = [];
  const add = (check: string, status: Finding['status'], detail: string) => findings.push({ check, status, detail });
  if (process.platform !== 'linux') {
    add('platform', 'fail', `${process.platform}: the sandbox needs Linux`);
    return findings;
  }
  const uid = process.getuid?.() ?? -1;
  const mode = resolveMode(config.mode);
  if (config.mode === 'root' && uid !== 0) add('mode', 'fail', `sandbox.mode is root but Verdict runs as uid ${uid}: run as root or use mode user`);
  else {
    const why = mode === 'root' ? 'per-slot host uids for candidates' : 'unprivileged, through user namespaces (one host uid for all)';
    add('mode', 'ok', `${mode} (uid ${uid}${config.mode === 'auto' ? ', sandbox.mode auto' : ''}): ${why}`);
  }

  let python: string | null = null;
  if (!path.isAbsolute(config.python) || !existsSync(config.python)) {
    add('python', 'fail', `sandbox.python: ${config.python} does not exist (install python3 ≥ 3.11: apt-get install -y python3)`);
  } else {
    const version = await run(config.python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])']);
    const [major = 0, minor = 0] = version.output.split('.').map(Number);
    if (version.code !== 0) add('python', 'fail', `${config.python} does not run: ${version.output.slice(0, 200)}`);
    else if (major < 3 || (major === 3 && minor < 11)) add('python', 'fail', `${config.python} is Python ${version.output}; the harness needs ≥ 3.11`);
    else {
      python = realpathSync(config.python);
      add('python', 'ok', `${python} (Python ${version.output})`);
    }
  }

  let bwrapOk = false;
  try {
    accessSync(config.bwrap, constants.X_OK);
    const version = await run(config.bwrap, ['--version']);
    bwrapOk = version.code === 0;
    add('bwrap', bwrapOk ? 'ok' : 'fail', bwrapOk ? `${config.bwrap} (${version.output})` : `${config.bwrap} --version failed: ${version.output}`);
  } catch {
    add('bwrap', 'fail', `sandbox.bwrap: ${config.bwrap} is missing or not executable (apt-get install -y bubblewrap)`);
  }

  const maxUserNs = readNumber('/proc/sys/user/max_user_namespaces');
  const unprivileged = readNumber('/proc/sys/kernel/unprivileged_userns_clone');
  const apparmor = readNumber('/proc/sys/kernel/apparmor_restrict_unprivileged_userns');
  const nsProblem =
    maxUserNs === 0
      ? 'user.max_user_namespaces is 0'
      : unprivileged === 0
        ? 'kernel.unprivileged_userns_clone is 0'
        : apparmor === 1
          ? 'kernel.apparmor_restrict_unprivileged_userns is 1 (give bwrap an AppArmor profile that allows userns)'
          : '';
  if (nsProblem === '') add('user namespaces', 'ok', `available (max ${maxUserNs ?? 'unknown'})`);
  else add('user namespaces', mode === 'user' ? 'fail' : 'warn', `${nsProblem}${mode === 'user' ? ': user mode needs them' : ' (root mode does not need them)'}`);

  if (bwrapOk && python !== null) {
    // The namespaces and mounts every slot uses, with the mode's identity: the first thing to fail in
    // a pod without user namespaces, with a masked /proc, or under a seccomp profile that forbids them.
    const probe = await run(config.bwrap, [...isolationArgs(python, 1 << 20), ...identityArgs(mode), '--', python, '-S', '-c', 'print("ok")']);
    if (probe.code === 0 && probe.output === 'ok') add('bwrap sandbox', 'ok', 'pid, net, ipc, uts namespaces, fresh /proc, read-only /usr');
    else add('bwrap sandbox', 'fail', `bwrap cannot build a slot: ${probe.output.slice(0, 300)} (a pod needs user namespaces and an unmasked /proc: services/sandbox/README.md)`);
  }

  const cgroups = detectCgroups(config.cgroups);
  add('cgroups', cgroups.kind === 'none' ? 'warn' : 'ok', cgroups.description);
  add('limits', 'ok', `max processes ${softLimit('Max processes')}, open files ${softLimit('Max open files')} (Verdict's own; each run gets its own lower rlimits)`);

  if (!findings.some((f) => f.status === 'fail')) {
    // The real thing: one slot, one run.
    try {
      const sandbox = await Sandbox.start(sandboxConfigSection.parse({ ...config, workers: 1 }));
      try {
        const report = await sandbox.runStdio({ code: 'print(6 * 7)', tests: [{ stdin: '', stdout: '42' }] }, new AbortController().signal);
        if (report.passed === 1) add('run', 'ok', `a sandboxed program ran (${sandbox.describe()})`);
        else add('run', 'fail', `a sandboxed program failed: ${JSON.stringify(report.failure)}`);
      } finally {
        await sandbox.close();
      }
    } catch (error) {
      add('run', 'fail', `the sandbox does not start: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return findings;
}

export function renderFindings(findings: Finding[]): string {
  const width = Math.max(...findings.map((f) => f.check.length));
  const lines = findings.map((f) => `${f.status.padEnd(4)}  ${f.check.padEnd(width)}  ${f.detail}`);
  const failed = findings.filter((f) => f.status === 'fail').length;
  lines.push(failed === 0 ? 'the sandbox can run here' : `the sandbox cannot run here: ${failed} check(s) failed`);
  return lines.join('\n');
}
