import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../services/paths';

/**
 * `verdict serve` as its own process, the way it is deployed, for the benchmarks that measure the
 * serving path from a client's side: its ports, and its CPU time and memory read from /proc.
 */
export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  grpcPort: number;
  httpPort: number;
  stop(): Promise<void>;
}

/**
 * The environment the image gives the server (the Dockerfile's `ENV` lines after its last `FROM`):
 * the benches run it as deployed.
 */
export function imageEnv(): Record<string, string> {
  const dockerfile = readFileSync(path.join(packageRoot(), 'Dockerfile'), 'utf8');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  return Object.fromEntries([...runtime.matchAll(/^ENV (\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
}

export function startServerProcess(workers: number): Promise<ServerProcess> {
  const bin = path.join(packageRoot(), 'bin', 'verdict.js');
  const args = ['serve', '--host', '127.0.0.1', '--port', '0', '--http-port', '0', '--workers', String(workers), '--log-level', 'info'];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...imageEnv() } });
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /gRPC on [\d.]+:(\d+), HTTP on [\d.]+:(\d+)/.exec(out);
      if (m) {
        // Past the start-up line the request log is not needed here: drain it so the pipe never fills.
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        const stop = async () => {
          if (child.exitCode !== null) return;
          const exited = new Promise((done) => child.once('exit', done));
          child.kill('SIGTERM');
          await exited;
        };
        resolve({ child, pid: child.pid!, grpcPort: Number(m[1]), httpPort: Number(m[2]), stop });
      }
    };
    child.stdout!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`verdict serve exited ${code}: ${out}`)));
  });
}

/** /proc's clock ticks per second (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** CPU seconds a process has used so far: its main (event-loop) thread, and all its other threads together. */
export function processCpu(pid: number): { main: number; others: number } {
  let main = 0;
  let others = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // a thread that ended meanwhile
    }
    // Fields after the command name (which may hold spaces) start at ")": utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS;
    if (Number(tid) === pid) main += seconds;
    else others += seconds;
  }
  return { main, others };
}

function statusKiB(pid: number, key: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/** Resident memory now, in MiB. */
export function rssMiB(pid: number): number {
  return statusKiB(pid, 'VmRSS') / 1024;
}

/** The peak resident memory since the last `resetPeakRss`, in MiB. */
export function peakRssMiB(pid: number): number {
  return statusKiB(pid, 'VmHWM') / 1024;
}

/** Starts a new peak: the kernel sets VmHWM back to the current RSS. */
export function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}
