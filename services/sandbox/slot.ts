import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { isJsonObject, type JsonObject } from '../../core/json';
import { encodeFrame, FrameReader } from './frames';
import type { SlotCommand } from './bwrap';
import { SandboxError } from '../../core/ports/sandbox';

const START_TIMEOUT_MS = 30_000;
const STDERR_TAIL = 4_096;
/** How long `ended()` waits for the slot's process group to empty after a kill. */
const GROUP_EXIT_MS = 5_000;

/** Whether a live (not zombie) process is in process group `pgid`, from /proc/<pid>/stat. */
function groupHasLiveMember(pgid: number): boolean {
  for (const name of readdirSync('/proc')) {
    if (name.charCodeAt(0) > 57) continue; // not a pid
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state !== 'Z' && Number(pgrp) === pgid) return true;
  }
  return false;
}

/**
 * One warm sandbox (bwrap + judge + zygote) as Node sees it: a process that answers one framed
 * job at a time. It leads its own process group, and killing it kills the group: the outer bwrap
 * and the sandbox's pid 1 together (the judge and everything under it die with pid 1). Killing only
 * the outer bwrap is not enough while a slot starts: until its pid 1 has asked to die with its
 * parent, it would outlive it, orphaned, as uid 0 (issue 13, item 11).
 */
export class Slot {
  jobs = 0;
  private child: ChildProcessWithoutNullStreams | null = null;
  private readonly reader = new FrameReader();
  private waiting: { resolve(frame: JsonObject): void; reject(error: SandboxError): void } | null = null;
  private stderrTail = '';
  private exited = false;
  private exitListeners: Array<() => void> = [];

  constructor(private readonly command: SlotCommand) {}

  get alive(): boolean {
    return this.child !== null && !this.exited;
  }

  /** Resolves once the harness says it is ready; rejects with the reason it could not start. */
  async start(): Promise<void> {
    const child = spawn(this.command.command, this.command.args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    this.child = child;
    child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => this.onExit(`cannot start: ${error.message}`));
    child.on('exit', (code, signal) => this.onExit(signal ? `killed by ${signal}` : `exited with status ${code}`));
    const ready = await this.next(START_TIMEOUT_MS);
    if (ready.ready !== true) {
      this.kill();
      throw new SandboxError('sandbox_start_failed', `sandbox did not start: ${JSON.stringify(ready).slice(0, 500)}`);
    }
  }

  /** Sends one job and resolves with the harness's reply. */
  request(job: JsonObject, timeoutMs: number): Promise<JsonObject> {
    if (!this.alive) return Promise.reject(new SandboxError('sandbox_worker_died', 'worker is not running'));
    this.jobs++;
    this.child!.stdin.write(encodeFrame(job));
    return this.next(timeoutMs);
  }

  kill(): void {
    if (!this.child || this.exited) return;
    try {
      if (this.child.pid !== undefined) process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // no such group (never started): nothing to kill beyond the child itself
    }
    this.child.kill('SIGKILL');
  }

  /** Ends the harness's input so it exits on its own; killed if it lingers. */
  retire(): void {
    if (!this.child || this.exited) return;
    this.child.stdin.end();
    setTimeout(() => this.kill(), 2_000).unref();
  }

  /**
   * Kills the slot and resolves once nothing of it is left: its process has exited and its process
   * group has no live member (bounded by GROUP_EXIT_MS; a member that will not die is reported by the
   * cgroup removal, which kills it too).
   */
  async end(): Promise<void> {
    if (!this.child) return;
    this.kill();
    await new Promise<void>((resolve) => this.onceExited(resolve));
    const pgid = this.child?.pid;
    if (pgid === undefined) return;
    for (const end = Date.now() + GROUP_EXIT_MS; groupHasLiveMember(pgid) && Date.now() < end; ) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // only zombies left in the group
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  onceExited(listener: () => void): void {
    if (this.exited) listener();
    else this.exitListeners.push(listener);
  }

  private next(timeoutMs: number): Promise<JsonObject> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        this.kill();
        reject(new SandboxError('sandbox_timeout', `sandbox gave no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting = {
        resolve: (frame) => {
          clearTimeout(timer);
          resolve(frame);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
    });
  }

  private onData(chunk: Buffer): void {
    let frames: unknown[];
    try {
      frames = this.reader.push(chunk);
    } catch {
      this.fail('sandbox_protocol', 'unreadable frame from the sandbox');
      return;
    }
    for (const frame of frames) {
      const waiting = this.waiting;
      this.waiting = null;
      if (!waiting) continue;
      if (isJsonObject(frame)) waiting.resolve(frame);
      else waiting.reject(new SandboxError('sandbox_protocol', 'reply is not an object'));
    }
  }

  private fail(reason: string, message: string): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(new SandboxError(reason, message));
    this.kill();
  }

  private onExit(how: string): void {
    if (this.exited) return;
    this.exited = true;
    const detail = this.stderrTail.trim().split('\n').slice(-3).join(' | ');
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(new SandboxError('sandbox_worker_died', `sandbox worker ${how}${detail ? `: ${detail}` : ''}`));
    for (const listener of this.exitListeners.splice(0)) listener();
  }
}
