import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { WorkspaceError, type HarborTask, type HarborTaskLookup, type WorkspacePort, type WorkspaceRun, type WorkspaceSource } from '../../core/ports/workspace';
import { systemMounts } from '../sandbox/bwrap';
import type { TerminalConfigSection } from './config';
import { unpack } from './tar';
import { loadHarborTask } from './tasks';

export { terminalConfigSection, type TerminalConfigSection } from './config';

/**
 * The local backend of the `terminal` verifier: each test run in a fresh bubblewrap sandbox
 * (verifiers/terminal/README.md has the contract and the threat table).
 *
 * Inside, a runner script (Verdict's, as the sandbox's root with only the capabilities it needs)
 * copies the workspace into a size-capped tmpfs at the task's workdir, starts `bash /tests/test.sh`
 * as an unprivileged uid of its own, and when test.sh ends kills every process that is left,
 * then reads the reward files. The test's processes cannot signal, trace or read the runner (other
 * uid), and its report travels on the runner's stdout, which they cannot reach, as the last line.
 */

const RECORD = '@@VERDICT@@';

const RUNNER = String.raw`
U="$1"; W="$2"
cp -a /.workspace/. "$W"/ 2>/dev/null || { echo "${RECORD} copy_failed"; exit 0; }
exec 4>/logs/verifier/test-stdout.txt
chown -R "$U:$U" "$W" /logs/verifier /tmp
cd "$W"
setpriv --reuid="$U" --regid="$U" --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs bash /tests/test.sh </dev/null >&4 2>&4 4>&-
code=$?
exec 4>&-
left=0
kill -KILL -1 2>/dev/null && left=1
full=0
[ "$(stat -f -c %a "$W")" = 0 ] && full=1
file() { if [ -f "/logs/verifier/$1" ]; then printf '+'; head -c 65536 "/logs/verifier/$1" | base64 -w0; else printf -- '-'; fi; }
out=$(tail -c 4000 /logs/verifier/test-stdout.txt 2>/dev/null | base64 -w0)
echo "${RECORD} ran $code $left $full $(file reward.txt) $(file reward.json) x$out"
`;

interface Slot {
  uid: number;
}

export class BwrapWorkspace implements WorkspacePort {
  private readonly free: Slot[];
  private readonly waiting: Array<(slot: Slot) => void> = [];
  readonly defaults: WorkspacePort['defaults'];
  private readonly tasks = new Map<string, HarborTaskLookup>();

  constructor(private readonly config: TerminalConfigSection) {
    const workers = config.workers === 'auto' ? availableParallelism() : config.workers;
    // Per process a block of uids, so that parallel Verdict processes (and test workers) never
    // share a test uid, whose RLIMIT_NPROC count is host-wide.
    const block = config.uidBase + (process.pid % 4096) * 64;
    this.free = Array.from({ length: workers }, (_, k) => ({ uid: block + k }));
    this.defaults = config.defaults;
  }

  async task(id: string): Promise<HarborTaskLookup | null> {
    if (this.config.taskDir === undefined) return null;
    let found = this.tasks.get(id);
    if (!found) this.tasks.set(id, (found = loadHarborTask(this.config.taskDir, id, this.config.defaults)));
    return found;
  }

  private async take(): Promise<Slot> {
    const slot = this.free.pop();
    if (slot) return slot;
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private give(slot: Slot): void {
    const next = this.waiting.shift();
    if (next) next(slot);
    else this.free.push(slot);
  }

  async run(task: HarborTask, source: WorkspaceSource, signal: AbortSignal): Promise<WorkspaceRun> {
    if (signal.aborted) throw new WorkspaceError(String(signal.reason ?? 'cancelled'));
    const slot = await this.take();
    const scratch = mkdtempSync(path.join(tmpdir(), 'verdict-terminal-'));
    try {
      return await this.runIn(scratch, slot, task, source, signal);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
      this.give(slot);
    }
  }

  private async runIn(scratch: string, slot: Slot, task: HarborTask, source: WorkspaceSource, signal: AbortSignal): Promise<WorkspaceRun> {
    const tests = path.join(scratch, 'tests');
    for (const [rel, content] of Object.entries(task.tests)) {
      const file = path.join(tests, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content, { mode: 0o644 });
    }
    let workspace = path.join(scratch, 'workspace');
    let skipped: string[] = [];
    const limits = { maxBytes: this.config.maxWorkspaceMb << 20, maxMembers: this.config.maxMembers };
    if ('tar' in source || !statSafe(this.resolve(source.path))?.isDirectory()) {
      const bytes = 'tar' in source ? source.tar : readFileSync(this.resolve(source.path));
      mkdirSync(workspace);
      const unpacked = unpack(bytes, workspace, limits);
      if (!unpacked.ok) return { kind: 'too_large', what: unpacked.tooLarge };
      skipped = unpacked.skipped;
    } else workspace = this.resolve(source.path);
    const passwd = path.join(scratch, 'passwd');
    writeFileSync(passwd, `root:x:0:0:root:/root:/bin/sh\nuser:x:${slot.uid}:${slot.uid}:user:/tmp:/bin/sh\n`);
    writeFileSync(path.join(scratch, 'group'), `root:x:0:\nuser:x:${slot.uid}:\n`);
    const workdir = this.config.workdir;
    const storage = Math.round(task.storageMb * 1024 * 1024);
    const args = [
      '--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
      '--hostname', 'workspace', '--die-with-parent', '--new-session',
      ...systemMounts(),
      ...(existsSync('/etc/ld.so.cache') ? ['--ro-bind', '/etc/ld.so.cache', '/etc/ld.so.cache'] : []),
      '--ro-bind', passwd, '/etc/passwd',
      '--ro-bind', path.join(scratch, 'group'), '/etc/group',
      '--proc', '/proc', '--dev', '/dev',
      '--size', String(64 << 20), '--tmpfs', '/tmp',
      '--size', String(storage), '--tmpfs', workdir,
      // A fresh, empty reward folder: nothing the workspace holds can be there before test.sh runs.
      '--size', String(16 << 20), '--tmpfs', '/logs/verifier',
      '--ro-bind', tests, '/tests',
      '--ro-bind', workspace, '/.workspace',
      '--cap-drop', 'ALL',
      ...['CAP_SETUID', 'CAP_SETGID', 'CAP_KILL', 'CAP_CHOWN', 'CAP_FOWNER', 'CAP_DAC_READ_SEARCH'].flatMap((c) => ['--cap-add', c]),
      '--clearenv',
      '--setenv', 'PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      '--setenv', 'HOME', '/tmp', '--setenv', 'USER', 'user', '--setenv', 'LOGNAME', 'user', '--setenv', 'LANG', 'C.UTF-8',
      // No user site-packages, no bytecode written into the workspace.
      '--setenv', 'PYTHONNOUSERSITE', '1', '--setenv', 'PYTHONDONTWRITEBYTECODE', '1',
      '--chdir', '/',
      '--', '/bin/sh', '-c', RUNNER, 'runner', String(slot.uid), workdir,
    ];
    const cpuSeconds = Math.max(1, Math.ceil(task.timeoutSec * task.cpus));
    const prlimit = [`--as=${task.memoryMb * 1024 * 1024 + (256 << 20)}`, `--cpu=${cpuSeconds}`, '--nproc=1024', '--nofile=1024', `--fsize=${storage}`, '--core=0'];
    return new Promise<WorkspaceRun>((resolve, reject) => {
      const child = spawn('/usr/bin/prlimit', [...prlimit, '--', this.config.bwrap, ...args], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (stdout.length > 1 << 20) stdout = stdout.slice(-(1 << 19));
      });
      child.stderr.on('data', (d: Buffer) => {
        if (stderr.length < 8192) stderr += d.toString();
      });
      let failure: WorkspaceError | null = null;
      const kill = (error: WorkspaceError) => {
        failure ??= error;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      // Wall time only ever aborts: the verdict itself is counted in CPU time and bytes.
      const timer = setTimeout(() => kill(new WorkspaceError('verifier_timeout', `test.sh ran past ${task.timeoutSec} s of wall time`)), task.timeoutSec * 1000 + 5000);
      const onAbort = () => kill(new WorkspaceError(String(signal.reason ?? 'cancelled')));
      signal.addEventListener('abort', onAbort, { once: true });
      child.on('error', (error) => kill(new WorkspaceError('sandbox_start_failed', error.message)));
      child.on('close', (code) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (failure) return reject(failure);
        const line = stdout.split('\n').filter((l) => l.startsWith(RECORD)).at(-1);
        if (line === undefined) return reject(new WorkspaceError('sandbox_start_failed', `the runner gave no report (exit ${code}): ${stderr.trim().slice(0, 300)}`));
        resolve(parseRecord(line, skipped));
      });
    });
  }

  private resolve(rel: string): string {
    if (this.config.workspaceRoot === undefined) throw new WorkspaceError('service_unavailable', 'metadata.workspace.path needs terminal.workspaceRoot');
    const full = path.resolve(this.config.workspaceRoot, rel);
    if (!full.startsWith(path.resolve(this.config.workspaceRoot) + path.sep)) throw new WorkspaceError('workspace_unavailable', `${rel}: outside terminal.workspaceRoot`);
    if (!existsSync(full)) throw new WorkspaceError('workspace_unavailable', `${rel}: no such workspace under terminal.workspaceRoot`);
    return full;
  }
}

function statSafe(file: string) {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}

function decodeFile(field: string): string | null {
  return field.startsWith('+') ? Buffer.from(field.slice(1), 'base64').toString('utf8') : null;
}

function parseRecord(line: string, skipped: string[]): WorkspaceRun {
  const parts = line.split(' ');
  if (parts[1] === 'copy_failed') return { kind: 'workspace_fault', fault: 'disk_full', output: 'the workspace does not fit [environment].storage_mb', skipped };
  const [, , code, left, full, txt, json, out] = parts;
  const output = Buffer.from((out ?? 'x').slice(1), 'base64').toString('utf8');
  const exitCode = Number(code);
  // In this order, so that one run always gets the same reason: test.sh's own death is certain,
  // whether a dying process was still there when the runner looked is not.
  if (exitCode >= 128) return { kind: 'workspace_fault', fault: 'runner_killed', output, skipped };
  if (left === '1') return { kind: 'workspace_fault', fault: 'leftover_processes', output, skipped };
  const rewardTxt = decodeFile(txt ?? '-');
  const rewardJson = decodeFile(json ?? '-');
  if (rewardTxt === null && rewardJson === null && full === '1') return { kind: 'workspace_fault', fault: 'disk_full', output, skipped };
  return { kind: 'finished', exitCode, rewardTxt, rewardJson, output, skipped };
}
