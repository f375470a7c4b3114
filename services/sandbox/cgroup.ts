import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Per-slot cgroups: a hard cap on the processes (pids) and memory (incl. tmpfs pages) of one whole
 * sandbox, on top of the per-process rlimits. Created under the service's own cgroup (never moving
 * the service itself); where nothing is writable the slot runs with rlimits only.
 */
export interface SlotCgroup {
  /** `cgroup.procs` files the slot's first process writes its pid into before exec'ing bwrap. */
  procsFiles: string[];
  /** Resolves once removed (or given up on: a busy leftover is removed by a later start). */
  remove(): Promise<void>;
}

export interface CgroupLimits {
  pidsMax: number;
  memoryBytes: number;
}

export interface CgroupSupport {
  kind: 'v1' | 'v2' | 'none';
  /** What is enforced, for logs and the README's "what is enforced where". */
  description: string;
  create(name: string, limits: CgroupLimits): SlotCgroup | null;
}

const ROOT = '/sys/fs/cgroup';

function ownPaths(): Map<string, string> {
  const paths = new Map<string, string>();
  let text = '';
  try {
    text = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return paths;
  }
  for (const line of text.split('\n')) {
    const [, controllers, where] = line.split(':');
    if (controllers === undefined || where === undefined) continue;
    for (const controller of controllers === '' ? ['unified'] : controllers.split(',')) paths.set(controller, where);
  }
  return paths;
}

function tryWrite(file: string, value: string): boolean {
  try {
    writeFileSync(file, value);
    return true;
  } catch {
    return false;
  }
}

function removeDirNow(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // gone already, or still busy: removeStale picks it up later
  }
}

/** Kills whatever is still in the cgroup: a slot's processes must never outlive it. */
function killMembers(dir: string): void {
  if (tryWrite(path.join(dir, 'cgroup.kill'), '1')) return; // v2, Linux ≥ 5.14
  let pids: string[] = [];
  try {
    pids = readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
  } catch {
    return;
  }
  for (const pid of pids) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
}

/**
 * The slot's processes die with its pid namespace a moment after bwrap exits; whatever is left (a
 * process that escaped the kill of the slot's process group) is killed. Retries without blocking.
 */
async function removeDirSoon(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (attempt > 0) killMembers(dir);
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EBUSY') return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Removes cgroups left by earlier Verdict processes that died without cleaning up. */
function removeStale(parent: string): void {
  let names: string[] = [];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^verdict-sandbox-(\d+)-/.exec(name);
    if (!m || Number(m[1]) === process.pid) continue;
    if (existsSync(`/proc/${m[1]}`)) continue;
    try {
      rmdirSync(path.join(parent, name));
    } catch {
      // still busy or not ours to remove
    }
  }
}

function v1Support(own: Map<string, string>): CgroupSupport | null {
  const pidsParent = own.has('pids') ? path.join(ROOT, 'pids', own.get('pids')!) : null;
  const memParent = own.has('memory') ? path.join(ROOT, 'memory', own.get('memory')!) : null;
  const probe = (parent: string | null, file: string): boolean => {
    if (parent === null) return false;
    const dir = path.join(parent, `verdict-sandbox-${process.pid}-probe`);
    try {
      mkdirSync(dir);
    } catch {
      return false;
    }
    const ok = existsSync(path.join(dir, file));
    removeDirNow(dir);
    return ok;
  };
  const pidsOk = probe(pidsParent, 'pids.max');
  const memOk = probe(memParent, 'memory.limit_in_bytes');
  if (!pidsOk && !memOk) return null;
  if (pidsOk) removeStale(pidsParent!);
  if (memOk) removeStale(memParent!);
  const enforced = [pidsOk ? 'pids.max' : '', memOk ? 'memory.limit_in_bytes' : ''].filter(Boolean).join(' + ');
  return {
    kind: 'v1',
    description: `cgroup v1: ${enforced} per slot`,
    create(name, limits) {
      const made: string[] = [];
      const procs: string[] = [];
      const add = (parent: string, file: string, value: string) => {
        const dir = path.join(parent, name);
        try {
          mkdirSync(dir);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return;
        }
        made.push(dir);
        if (tryWrite(path.join(dir, file), value)) procs.push(path.join(dir, 'cgroup.procs'));
      };
      if (pidsOk) add(pidsParent!, 'pids.max', String(limits.pidsMax));
      if (memOk) add(memParent!, 'memory.limit_in_bytes', String(limits.memoryBytes));
      return { procsFiles: procs, remove: async () => void (await Promise.all(made.map(removeDirSoon))) };
    },
  };
}

function v2Support(own: Map<string, string>): CgroupSupport | null {
  const where = own.get('unified');
  if (where === undefined) return null;
  const mount = existsSync(path.join(ROOT, 'cgroup.controllers')) ? ROOT : path.join(ROOT, 'unified');
  const parent = path.join(mount, where);
  let controllers: string[] = [];
  try {
    controllers = readFileSync(path.join(parent, 'cgroup.controllers'), 'utf8').trim().split(/\s+/);
  } catch {
    return null;
  }
  const wanted = ['pids', 'memory'].filter((c) => controllers.includes(c));
  if (wanted.length === 0) return null;
  // Children get a controller only when the parent delegates it; that fails while the parent holds
  // processes itself (the "no internal processes" rule) unless it is the root, so it is a probe.
  const subtree = () => {
    try {
      return readFileSync(path.join(parent, 'cgroup.subtree_control'), 'utf8').trim().split(/\s+/);
    } catch {
      return [];
    }
  };
  for (const c of wanted) if (!subtree().includes(c)) tryWrite(path.join(parent, 'cgroup.subtree_control'), `+${c}`);
  const delegated = wanted.filter((c) => subtree().includes(c));
  if (delegated.length === 0) return null;
  const probeDir = path.join(parent, `verdict-sandbox-${process.pid}-probe`);
  try {
    mkdirSync(probeDir);
  } catch {
    return null;
  }
  removeDirNow(probeDir);
  removeStale(parent);
  const files = delegated.map((c) => (c === 'pids' ? 'pids.max' : 'memory.max'));
  return {
    kind: 'v2',
    description: `cgroup v2: ${files.join(' + ')} per slot`,
    create(name, limits) {
      const dir = path.join(parent, name);
      try {
        mkdirSync(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return null;
      }
      if (delegated.includes('pids')) tryWrite(path.join(dir, 'pids.max'), String(limits.pidsMax));
      if (delegated.includes('memory')) {
        tryWrite(path.join(dir, 'memory.max'), String(limits.memoryBytes));
        tryWrite(path.join(dir, 'memory.swap.max'), '0');
      }
      return { procsFiles: [path.join(dir, 'cgroup.procs')], remove: () => removeDirSoon(dir) };
    },
  };
}

const NONE: CgroupSupport = {
  kind: 'none',
  description: 'no writable cgroup: rlimits only (RLIMIT_NPROC per slot uid, RLIMIT_AS per run)',
  create: () => null,
};

/** v1 controllers where mounted and writable (this machine), else a delegated v2 subtree, else none. */
export function detectCgroups(mode: 'auto' | 'off'): CgroupSupport {
  if (mode === 'off' || process.platform !== 'linux') return NONE;
  const own = ownPaths();
  return v1Support(own) ?? v2Support(own) ?? NONE;
}
