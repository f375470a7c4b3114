import { existsSync, lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** How a slot gets an unprivileged identity for candidates (services/sandbox/README.md, "Modes"). */
export type SandboxMode = 'root' | 'user';

export interface SlotCommandOptions {
  mode: SandboxMode;
  bwrap: string;
  python: string;
  /** The harness package (`verdict_harness/`), bound read-only into the sandbox. */
  harnessDir: string;
  uid: number;
  gid: number;
  tmpfsBytes: number;
  /** cgroup.procs files to join before exec'ing bwrap (empty: no cgroup). */
  cgroupProcs: string[];
}

/** Where the harness package appears inside the sandbox, and the one line that starts a slot. */
const HARNESS_PARENT = '/verdict';
const HARNESS_START = `import sys; sys.path.insert(0, '${HARNESS_PARENT}'); from verdict_harness.main import main; main(sys.argv)`;

export interface SlotCommand {
  command: string;
  args: string[];
}

/** Top-level system paths: merged-/usr symlinks are recreated, real directories bound read-only. */
export function systemMounts(): string[] {
  const out = ['--ro-bind', '/usr', '/usr'];
  for (const dir of ['/lib', '/lib64', '/lib32', '/bin', '/sbin']) {
    let stat;
    try {
      stat = lstatSync(dir);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) out.push('--symlink', path.relative('/', realpathSync(dir)), dir);
    else if (stat.isDirectory()) out.push('--ro-bind', dir, dir);
  }
  if (existsSync('/etc/ld.so.cache')) out.push('--ro-bind', '/etc/ld.so.cache', '/etc/ld.so.cache');
  return out;
}

/**
 * The command that starts one slot: bubblewrap with fresh pid/net/ipc/uts/cgroup namespaces,
 * read-only /usr, a size-capped tmpfs as the only writable place, no view of the project or $HOME,
 * a new session, and death with Verdict. In root mode it runs as host root, so that the judge inside
 * keeps CAP_SETUID/SETGID/KILL and candidates run as real unprivileged host uids, which RLIMIT_NPROC
 * counts; in user mode it runs as Verdict's own uid in a user namespace, and the zygote puts the
 * candidates in a user and pid namespace below the judge's.
 */
export function slotCommand(options: SlotCommandOptions): SlotCommand {
  const interpreter = realpathSync(options.python);
  const bwrapArgs = [
    ...isolationArgs(interpreter, options.tmpfsBytes),
    ...identityArgs(options.mode),
    '--ro-bind',
    options.harnessDir,
    `${HARNESS_PARENT}/verdict_harness`,
    '--',
    interpreter,
    '-P',
    '-S',
    '-s',
    '-B',
    '-c',
    HARNESS_START,
    JSON.stringify({ uid: options.uid, gid: options.gid, workdir: '/tmp', mode: options.mode }),
  ];
  if (options.cgroupProcs.length === 0) return { command: options.bwrap, args: bwrapArgs };
  // Join the slot's cgroups first, so bwrap and everything under it are counted from the start.
  const join = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 97; shift; done; shift; exec "$@"';
  return { command: '/bin/sh', args: ['-c', join, 'sh', ...options.cgroupProcs, '--', options.bwrap, ...bwrapArgs] };
}

/**
 * Root mode: the judge keeps what it needs to drop its zygote to the slot uid and to kill it.
 * User mode: a user namespace whose uid 0 is Verdict's own uid; CAP_SYS_ADMIN and CAP_SETPCAP there
 * (and only there) let the zygote give candidates a pid namespace of their own, then drop them all.
 */
export function identityArgs(mode: SandboxMode): string[] {
  return mode === 'root'
    ? ['--cap-drop', 'ALL', '--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_KILL']
    : ['--unshare-user', '--uid', '0', '--gid', '0', '--cap-drop', 'ALL', '--cap-add', 'CAP_SYS_ADMIN', '--cap-add', 'CAP_SETPCAP'];
}

/** Namespaces, mounts and environment of every sandbox (also the cold-start floor of bench/code.ts). */
export function isolationArgs(interpreter: string, tmpfsBytes: number): string[] {
  const prefixMount = interpreter.startsWith('/usr/')
    ? []
    : ['--ro-bind', path.dirname(path.dirname(interpreter)), path.dirname(path.dirname(interpreter))];
  return [
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--hostname',
    'sandbox',
    '--die-with-parent',
    '--new-session',
    ...systemMounts(),
    ...prefixMount,
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--perms',
    '1777',
    '--size',
    String(tmpfsBytes),
    '--tmpfs',
    '/tmp',
    '--chdir',
    '/tmp',
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/bin:/bin',
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--setenv',
    'HOME',
    '/tmp',
    // Same hash seed everywhere: set and dict-of-str iteration order, hence outputs, are reproducible.
    '--setenv',
    'PYTHONHASHSEED',
    '0',
    '--setenv',
    'MALLOC_ARENA_MAX',
    '2',
  ];
}
