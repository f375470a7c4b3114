import { execFileSync, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { WorkspaceError, type HarborTask, type HarborTaskLookup, type TerminalPort, type WorkspaceRun, type WorkspaceSource } from '../../core/ports/terminal';
import { systemMounts } from '../sandbox/bwrap';
import type { TerminalConfigSection } from './config';
import { runnerInput } from './runner-input';
import { readArchive, SYSTEM_ROOTS, type WorkspaceEntry } from './tar';
import { hookPthLine } from './python-hook';
import { pythonLeftOut, ROOT_TEST_CONFIG } from './test-config';
import { loadHarborTask } from './tasks';

export { terminalConfigSection, type TerminalConfigSection } from './config';

/**
 * The local backend of the `terminal` verifier: each test run in a fresh bubblewrap sandbox
 * (verifiers/terminal/README.md has the contract and the threat table).
 *
 * Inside, Verdict's runner (runner.c, as the sandbox's root with only the capabilities it needs)
 * copies the workspace into a size-capped tmpfs at the task's workdir, starts `bash /tests/test.sh`
 * as an unprivileged uid of its own, and when test.sh ends kills every process that is left,
 * then reads the reward files. The test's processes cannot signal, trace or read the runner (other
 * uid), and its report travels on the runner's stdout, which they cannot reach.
 */

const RECORD = '@@VERDICT@@';
/** runner.c, compiled by `npm run build` beside this file. */
const RUNNER = path.join(__dirname, 'runner');
/**
 * Verdict's Python start-up hook (python/sitecustomize.py), first on the tests' PYTHONPATH: the
 * environment's modules win over a workspace's `pytest.py`, `json.py` or plugin dist-info.
 */
const PYTHON_HOOK = path.join(__dirname, 'python');
const PYTHON_HOOK_AT = '/.verdict-python';
/** What the runner sends back of the reward files (their head) and of test.sh's output (its tail). */
const MAX_REWARD_BYTES = 64 << 10;
const OUTPUT_TAIL_BYTES = 4000;
/**
 * The paths of `files` (an episode's changes under the system folders, which bwrap takes from the
 * host) that the task's tests name — `/etc/nginx/sites-enabled/app`, `/usr/local/bin/backup.sh` —
 * test.sh's shebang line aside. Those tests would read the host's file, or none, in place of the
 * episode's: a solved episode would get a quiet 0, so the run is ABORTED instead.
 */
function readByTests(task: HarborTask, files: string[]): string[] {
  if (files.length === 0) return [];
  const decoder = new TextDecoder();
  const text = Object.entries(task.tests)
    .map(([name, content]) => {
      const body = typeof content === 'string' ? content : decoder.decode(content);
      return name === 'test.sh' && body.startsWith('#!') ? body.slice(body.indexOf('\n') + 1) : body;
    })
    .join('\n');
  return files.filter((file) => {
    for (let at = text.indexOf(file); at >= 0; at = text.indexOf(file, at + 1)) if (!/[\w.\/-]/.test(text[at + file.length] ?? '')) return true;
    return false;
  });
}

/** The test run's PATH, the host's system folders only: no folder of the workspace is on it. */
const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Top folders of a change set the backend mounts a tmpfs at, /tmp aside. */
const MAX_TOPS = 32;

interface Slot {
  uid: number;
}

export class BwrapWorkspace implements TerminalPort {
  private readonly free: Slot[];
  private readonly waiting: Array<(slot: Slot) => void> = [];
  readonly defaults: TerminalPort['defaults'];
  private readonly tasks = new Map<string, HarborTaskLookup>();
  /** The host's /usr and its links, looked up once rather than on every run. */
  private readonly mounts = systemMounts();
  /** Commands and Python packages of tasks' needs, looked up on this host once. */
  private readonly commands = new Map<string, boolean>();
  private readonly modules = new Map<string, boolean>();

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
    if ('container' in source) throw new WorkspaceError('service_unavailable', 'metadata.environment names a running container: the bwrap backend runs tests against files (metadata.workspace)');
    const workdir = task.workdir ?? this.config.defaults.workdir;
    const workdirRel = workdir.split('/').filter((p) => p !== '').join('/');
    const workdirTop = workdirRel.split('/', 1)[0]!;
    if (SYSTEM_ROOTS.has(workdirTop) || workdirRel.split('/').length > 64)
      throw new WorkspaceError('workdir_unavailable', `the bwrap backend cannot make the workdir ${workdir}: it lies in the host's /${workdirTop}, or too deep`);
    // An archive is read here and its entries created by the runner in the sandbox: nothing of
    // the policy's workspace is written on the host. A folder is bound read-only and copied in.
    let folder: string | null = null;
    let entries: WorkspaceEntry[] = [];
    let skipped: string[] = [];
    let archive: Uint8Array | null = null;
    if ('tar' in source) archive = source.tar;
    else {
      const full = this.resolve(source.path);
      if (statSafe(full)?.isDirectory()) folder = full;
      else archive = readFileSync(full);
    }
    if (folder !== null && source.root === 'filesystem') throw new WorkspaceError('workspace_unavailable', `${'path' in source ? source.path : ''}: a whole-filesystem change set is read from a .tar or .tar.gz, not a folder`);
    if (archive !== null) {
      const read = readArchive(archive, { maxBytes: this.config.maxWorkspaceMb << 20, maxMembers: this.config.maxMembers }, source.root);
      if (!read.ok) return { kind: 'too_large', what: read.tooLarge };
      ({ entries, skipped } = read);
      const unseen = readByTests(task, read.systemFiles);
      if (unseen.length > 0)
        throw new WorkspaceError(
          'episode_files_unavailable',
          `the tests read ${unseen.slice(0, 5).join(', ')}, which the episode changed in a system folder the bwrap backend takes from the host: the task needs a container backend`,
        );
    }
    const rooted = rootEntries(entries, source.root, workdirRel, skipped);
    const lacks = this.lacks(task, workdir, new Set(rooted.entries.map((e) => `/${e.path}`)));
    if (lacks) return lacks;
    const slot = await this.take();
    try {
      // Cancelled while it waited for a slot: the listener in runIn would never hear it.
      if (signal.aborted) throw new WorkspaceError(String(signal.reason ?? 'cancelled'));
      return await this.runIn(slot, task, workdir, rooted.tops, runnerInput(rooted.entries, task.tests), folder, skipped, signal);
    } finally {
      this.give(slot);
    }
  }

  /**
   * What the task's tests need (task.needs) that this host lacks, found before anything runs:
   * commands not on the sandbox's PATH (the host's /usr), Python packages its python3 cannot
   * import, and any download, as the sandbox has no network. Looked up once per name.
   */
  private lacks(task: HarborTask, workdir: string, present: ReadonlySet<string>): WorkspaceRun | null {
    const commands = task.needs.commands.filter((c) => !this.hasCommand(c, task, workdir, present));
    const unknown = task.needs.pythonModules.filter((m) => !this.modules.has(m));
    if (unknown.length > 0) {
      let missing: string[] = unknown;
      try {
        const out = execFileSync('python3', ['-c', 'import importlib.util, sys\nprint(" ".join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))', ...unknown], {
          env: { PATH: SANDBOX_PATH, PYTHONNOUSERSITE: '1', HOME: '/tmp', LANG: 'C.UTF-8' },
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        missing = out.split(/\s+/).filter((m) => m !== '');
      } catch {
        // no python3 at all: every module is missing
      }
      for (const m of unknown) this.modules.set(m, !missing.includes(m));
    }
    const pythonModules = task.needs.pythonModules.filter((m) => this.modules.get(m) === false);
    const network = task.needs.network;
    if (commands.length === 0 && pythonModules.length === 0 && network.length === 0) return null;
    return { kind: 'environment_lacks', commands, pythonModules, network };
  }

  /**
   * A command by name: on the sandbox's PATH. By path: under /tests, the task's; under the workdir,
   * the policy's to make (missing there, the tests fail: its 0); in the host's system folders, the
   * host's; in a folder the task's Dockerfile makes (`/opt/verifier-venv/bin/python`), the image's,
   * so the episode's files must hold it; anywhere else, the policy's again.
   */
  private hasCommand(command: string, task: HarborTask, workdir: string, present: ReadonlySet<string>): boolean {
    if (command.startsWith('/tests/')) return command.slice('/tests/'.length) in task.tests;
    if (command.startsWith(workdir === '/' ? '/' : `${workdir}/`)) return true;
    if (command.startsWith('/') && !SYSTEM_ROOTS.has(command.split('/')[1]!)) {
      // The image's only when its Dockerfile makes that folder (`RUN python3 -m venv /opt/verifier-venv`);
      // any other path is the policy's to make, and its absence the policy's 0, never ABORTED.
      const folder = command.split('/').slice(0, 3).join('/');
      return present.has(command) || !(task.dockerfile ?? '').includes(folder);
    }
    // By name, also in the folders test.sh puts on its PATH: the episode's files, or the host's.
    if (!command.startsWith('/')) {
      for (const dir of task.needs.searchPath) {
        if (SYSTEM_ROOTS.has(dir.split('/')[1]!) ? this.hasCommand(`${dir}/${command}`, task, workdir, present) : present.has(`${dir}/${command}`)) return true;
        // A folder on PATH that the image does not make is the policy's: whatever it lacks is its 0.
        if (!SYSTEM_ROOTS.has(dir.split('/')[1]!) && !(task.dockerfile ?? '').includes(dir.split('/').slice(0, 3).join('/'))) return true;
      }
    }
    let found = this.commands.get(command);
    if (found === undefined) {
      const candidates = command.startsWith('/') ? [command] : SANDBOX_PATH.split(':').map((dir) => path.join(dir, command));
      found = candidates.some((file) => {
        try {
          accessSync(file, constants.X_OK);
          return statSync(file).isFile();
        } catch {
          return false;
        }
      });
      this.commands.set(command, found);
    }
    return found;
  }

  private async runIn(slot: Slot, task: HarborTask, workdir: string, tops: string[], input: Buffer[], folder: string | null, skipped: string[], signal: AbortSignal): Promise<WorkspaceRun> {
    const storage = Math.round(task.storageMb * 1024 * 1024);
    const testsBytes = Object.values(task.tests).reduce((sum, text) => sum + Buffer.byteLength(text) + 4096, 1 << 20);
    // The hook's `.pth` line, first in the first `.pth` file the host's python3 processes (read
    // again each run), bound over it: a test.sh that sets PYTHONPATH itself cannot drop the hook.
    const pth = firstPthFile();
    const pthText = pth === null ? null : Buffer.concat([Buffer.from(hookPthLine(PYTHON_HOOK_AT)), readFileSafe(pth) ?? Buffer.alloc(0)]);
    const args = [
      '--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
      '--hostname', 'workspace', '--die-with-parent', '--new-session',
      // Readable by the test user: the runner writes passwd and group into it.
      '--perms', '0755', '--dir', '/etc',
      ...this.mounts,
      '--proc', '/proc', '--dev', '/dev',
      // A size-capped tmpfs at each top folder the episode's files (and the workdir) are in.
      ...tops.flatMap((top) => (top === 'tmp' ? ['--perms', '1777', '--size', String(storage), '--tmpfs', '/tmp'] : ['--perms', '0755', '--size', String(storage), '--tmpfs', `/${top}`])),
      // A fresh, empty reward folder: nothing the workspace holds can be there before test.sh runs.
      '--perms', '1777', '--size', String(16 << 20), '--tmpfs', '/logs/verifier',
      // The runner fills these two from its stdin: /tests root's, the workdir the test uid's.
      '--perms', '0755', '--size', String(testsBytes), '--tmpfs', '/tests',
      ...(folder === null ? [] : ['--ro-bind', folder, '/.workspace']),
      '--ro-bind', RUNNER, '/.runner',
      '--ro-bind', PYTHON_HOOK, PYTHON_HOOK_AT,
      ...(pth !== null && pthText !== null ? ['--perms', '0644', '--ro-bind-data', '3', pth] : []),
      '--cap-drop', 'ALL',
      ...['CAP_SETUID', 'CAP_SETGID', 'CAP_KILL', 'CAP_CHOWN', 'CAP_FOWNER', 'CAP_DAC_READ_SEARCH'].flatMap((c) => ['--cap-add', c]),
      '--clearenv',
      '--setenv', 'PATH', SANDBOX_PATH,
      '--setenv', 'HOME', '/tmp', '--setenv', 'USER', 'user', '--setenv', 'LOGNAME', 'user', '--setenv', 'LANG', 'C.UTF-8',
      // No user site-packages, no bytecode written into the workspace.
      '--setenv', 'PYTHONNOUSERSITE', '1', '--setenv', 'PYTHONDONTWRITEBYTECODE', '1',
      // [verifier] env, over the defaults as Harbor's exec sets it.
      ...Object.entries(task.env).flatMap(([key, value]) => ['--setenv', key, value]),
      // Verdict's hook before the task's own PYTHONPATH (a test.sh that sets its own drops it).
      '--setenv', 'PYTHONPATH', task.env.PYTHONPATH ? `${PYTHON_HOOK_AT}:${task.env.PYTHONPATH}` : PYTHON_HOOK_AT,
      // The pipe the runner gives the test run for the hook's record of pytest runs (runner.c's SESSIONS_FD).
      '--setenv', 'VERDICT_SESSIONS_FD', '8',
      '--chdir', '/',
      // The test user is this backend's own uid; a named [verifier] user gives it its name.
      '--', '/.runner', String(slot.uid), typeof task.user === 'string' && task.user !== 'root' ? task.user : 'user', workdir,
      // rlimits of the test run only (the runner keeps its own): CPU s, address space and file size in KiB.
      String(Math.max(1, Math.ceil(task.timeoutSec * task.cpus))), String(task.memoryMb * 1024 + (256 << 10)), String(Math.ceil(storage / 1024)),
      String(MAX_REWARD_BYTES), String(OUTPUT_TAIL_BYTES), String(Math.ceil(task.timeoutSec)),
    ];
    return new Promise<WorkspaceRun>((resolve, reject) => {
      const child = spawn(this.config.bwrap, args, { stdio: ['pipe', 'pipe', 'pipe', 'pipe'], detached: true });
      const data = child.stdio[3] as Writable | null;
      data?.on('error', () => {});
      data?.end(pthText ?? Buffer.alloc(0));
      // The runner stops reading when the workspace does not fit, and says so in its report.
      child.stdin.on('error', () => {});
      child.stdin.cork();
      for (const chunk of input) child.stdin.write(chunk);
      child.stdin.end();
      const chunks: Buffer[] = [];
      let size = 0;
      child.stdout.on('data', (d: Buffer) => {
        // The report: a line, then at most 2 × 64 KiB of reward files and 4 KB of output.
        if (size < 1 << 20) chunks.push(d);
        size += d.length;
      });
      let stderr = '';
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
        // The host's /usr is the task's own environment only for a task that names no image.
        const report = parseReport(Buffer.concat(chunks), skipped, task.image === null && task.dockerfile === null ? 'task' : 'host');
        if (report instanceof WorkspaceError) return reject(report);
        if (report === null) return reject(new WorkspaceError('sandbox_start_failed', `the runner gave no report (exit ${code}): ${stderr.trim().slice(0, 300)}`));
        resolve(report);
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

/**
 * The entries rooted at `/` as the runner creates them — a workdir archive's under the workdir's
 * path, whose folders come first — and the top folders that get a tmpfs (`/tmp` always, at most
 * MAX_TOPS: members under more are skipped).
 */
function rootEntries(entries: WorkspaceEntry[], root: 'workdir' | 'filesystem', workdirRel: string, skipped: string[]): { entries: WorkspaceEntry[]; tops: string[] } {
  const now = Math.floor(Date.now() / 1000);
  const self = root === 'workdir' ? entries.find((e) => e.path === '.') : undefined;
  const parts = workdirRel === '' ? [] : workdirRel.split('/');
  const above = new Set(parts.map((_, k) => parts.slice(0, k + 1).join('/')));
  // A change set's file or link where the workdir or a folder above it goes is dropped: test.sh
  // runs there, and the policy cannot turn its run into a backend failure.
  if (root === 'filesystem')
    entries = entries.filter((e) => {
      if (!above.has(e.path) || e.kind === 'dir') return true;
      skipped.push(`${e.path}: a ${e.kind} where the workdir's folders go`);
      return false;
    });
  const present = new Set(root === 'filesystem' ? entries.map((e) => e.path) : []);
  const out: WorkspaceEntry[] = [];
  for (let k = 1; k <= parts.length; k++) {
    const dir = parts.slice(0, k).join('/');
    if (present.has(dir)) continue;
    out.push(k === parts.length && self ? { ...self, path: dir } : { kind: 'dir', path: dir, mode: 0o755, mtime: now });
  }
  const prefix = root === 'workdir' && workdirRel !== '' ? `${workdirRel}/` : '';
  for (const entry of entries) if (entry.path !== '.') out.push(prefix === '' ? entry : { ...entry, path: prefix + entry.path });
  const tops = new Set(['tmp']);
  const kept: WorkspaceEntry[] = [];
  let dropped = 0;
  const system = new Map<string, number>();
  const leftOut = new Map<string, number>();
  for (const entry of out) {
    const slash = entry.path.indexOf('/');
    const first = slash < 0 ? entry.path : entry.path.slice(0, slash);
    // The host's folders and the sandbox's own (a workdir of `/` puts an archive's `etc/` there),
    // and a file where /tmp is mounted: never the episode's to fill.
    if (SYSTEM_ROOTS.has(first) || (entry.path === 'tmp' && entry.kind !== 'dir')) {
      system.set(first, (system.get(first) ?? 0) + 1);
      continue;
    }
    const python = pythonLeftOut(entry.path);
    if (python !== null) {
      leftOut.set(python, (leftOut.get(python) ?? 0) + 1);
      continue;
    }
    if (slash < 0 && entry.kind !== 'dir' && ROOT_TEST_CONFIG.has(entry.path)) {
      skipped.push(`/${entry.path}: a test tool's configuration above /tests, which the tests would read`);
      continue;
    }
    const top = slash < 0 ? (entry.kind === 'dir' ? entry.path : null) : first;
    if (top !== null && !tops.has(top)) {
      if (tops.size > MAX_TOPS) {
        dropped++;
        continue;
      }
      tops.add(top);
    }
    kept.push(entry);
  }
  if (dropped > 0) skipped.push(`${dropped} members under top folders past the ${MAX_TOPS} the bwrap backend mounts`);
  for (const [why, count] of leftOut) skipped.push(`${count} member${count === 1 ? '' : 's'}: ${why}`);
  for (const [first, count] of system) skipped.push(`${first}: ${count} member${count === 1 ? '' : 's'} where the sandbox's own folders are`);
  return { entries: kept, tops: [...tops] };
}

function statSafe(file: string) {
  try {
    return statSync(file);
  } catch {
    return null;
  }
}

/**
 * The runner's report (runner.c): a line, then each file as `<name> <length>\n<bytes>` or
 * `<name> -`. Null when there is no report at all.
 */
function parseReport(stdout: Buffer, skipped: string[], environment: 'task' | 'host'): WorkspaceRun | WorkspaceError | null {
  let offset = 0;
  const line = (): string | null => {
    const end = stdout.indexOf(0x0a, offset);
    if (end < 0) return null;
    const text = stdout.toString('utf8', offset, end);
    offset = end + 1;
    return text;
  };
  const record = line();
  if (record === null || !record.startsWith(RECORD + ' ')) return null;
  const [kind, ...rest] = record.slice(RECORD.length + 1).split(' ');
  if (kind === 'failed') return new WorkspaceError('sandbox_start_failed', `the runner failed: ${rest.join(' ')}`);
  if (kind === 'copy_failed' && rest[0] === 'nesting') return { kind: 'too_large', what: `folders nested deeper than ${rest[1]}` };
  if (kind === 'copy_failed') return { kind: 'workspace_fault', fault: 'disk_full', output: 'the workspace does not fit [environment].storage_mb', skipped };
  if (kind !== 'ran' && kind !== 'timeout') return null;
  if (kind === 'ran' && rest.length !== 4) return null;
  const files = new Map<string, string>();
  const rewardNotFile: Array<'reward.txt' | 'reward.json'> = [];
  for (;;) {
    const header = line();
    if (header === null) break;
    const [name, length] = header.split(' ');
    if (length === '!' && (name === 'reward.txt' || name === 'reward.json')) rewardNotFile.push(name);
    if (name === undefined || length === '-' || length === '!' || length === undefined) continue;
    files.set(name, stdout.toString('utf8', offset, offset + Number(length)));
    offset += Number(length);
  }
  const output = files.get('test-stdout.txt') ?? '';
  if (kind === 'timeout') {
    // Past its wall time: ABORTED — unless the workspace put what blocks test.sh's write at a reward path.
    if (rewardNotFile.length === 0) return new WorkspaceError('verifier_timeout', `test.sh ran past its wall time: ${output.slice(-300)}`);
    return { kind: 'finished', exitCode: 124, rewardTxt: null, rewardJson: null, rewardNotFile, output, skipped, environment };
  }
  const [code, left, full, cutShort] = rest;
  const exitCode = Number(code);
  // In this order, so that one run always gets the same reason: test.sh's own death is certain,
  // whether a dying process was still there when the runner looked is not.
  if (exitCode >= 128) return { kind: 'workspace_fault', fault: 'runner_killed', output, skipped };
  if (left === '1') return { kind: 'workspace_fault', fault: 'leftover_processes', output, skipped };
  // A pytest run that started and never ended: the tests' own process was cut short (os._exit in the workspace's code).
  if (cutShort !== '0') return { kind: 'workspace_fault', fault: 'tests_exited_early', output, skipped };
  const rewardTxt = files.get('reward.txt') ?? null;
  const rewardJson = files.get('reward.json') ?? null;
  // A full disk and no reward written (none, or empty: the write itself failed): the workspace filled it.
  if (full === '1' && rewardNotFile.length === 0 && [rewardTxt, rewardJson].every((text) => text === null || text.trim() === '')) return { kind: 'workspace_fault', fault: 'disk_full', output, skipped };
  return { kind: 'finished', exitCode, rewardTxt, rewardJson, rewardNotFile, output, skipped, environment };
}

let firstPth: string | null | undefined;
/**
 * The first `.pth` file the host's python3 processes at start-up — its site folders in order, each
 * one's `.pth` files sorted as `site` sorts them (hidden ones skipped) — or null (no python3, no
 * `.pth`: the hook is then on PYTHONPATH only, and a test.sh that sets its own drops it). Asked once.
 */
function firstPthFile(): string | null {
  if (firstPth !== undefined) return firstPth;
  firstPth = null;
  try {
    const dirs = JSON.parse(execFileSync('python3', ['-I', '-S', '-c', 'import json, site; print(json.dumps(site.getsitepackages()))'], { encoding: 'utf8', env: { PATH: SANDBOX_PATH }, timeout: 10_000 })) as string[];
    for (const dir of dirs) {
      const names = (() => {
        try {
          return readdirSync(dir).filter((name) => name.endsWith('.pth') && !name.startsWith('.')).sort();
        } catch {
          return [];
        }
      })();
      const file = names.map((name) => path.join(dir, name)).find((file) => statSafe(file)?.isFile());
      if (file !== undefined) return (firstPth = file);
    }
  } catch {
    // No python3 on the host: nothing to run the hook in.
  }
  return firstPth;
}

function readFileSafe(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}
