import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { JsonObject } from '../../core/json';
import { packageRoot } from '../paths';
import { type SandboxMode, slotCommand } from './bwrap';
import { type CgroupSupport, detectCgroups, type SlotCgroup } from './cgroup';
import type { SandboxConfigSection } from './config';
import { toCallResult, toTestReport } from './replies';
import { Slot } from './slot';
import {
  type AssertJob,
  type CallRequest,
  type CallResult,
  type RequestLimits,
  SandboxError,
  type SandboxPort,
  type StdioJob,
  type TestReport,
} from '../../core/ports/sandbox';
import { UNOBSERVED_SANDBOX, type SandboxObserver } from '../observers';

/** Most slots per pool: the uid layout reserves 16 per pool. */
const MAX_SLOTS = 16;
/** Tries per job when the worker itself dies or faults (never when the candidate fails). */
const MAX_ATTEMPTS = 2;

interface Task {
  job: JsonObject;
  timeoutMs: number;
  signal: AbortSignal;
  attempts: number;
  resolve(reply: JsonObject): void;
  reject(error: SandboxError): void;
  runningOn: Slot | null;
}

interface SlotState {
  index: number;
  uid: number;
  generation: number;
  slot: Slot | null;
  starting: boolean;
  busy: boolean;
  restartPending: boolean;
  failures: number;
  lastError: string;
  cgroup: SlotCgroup | null;
}

let instances = 0;

/** `auto`: root mode when Verdict runs as root (it adds per-slot host uids), else user mode. */
export function resolveMode(mode: SandboxConfigSection['mode']): SandboxMode {
  if (mode !== 'auto') return mode;
  return process.getuid?.() === 0 ? 'root' : 'user';
}

/** The harness package in the source tree (Python files are not compiled into dist/). */
export function harnessDir(): string {
  return path.join(packageRoot(__dirname), 'services/sandbox/harness/verdict_harness');
}

function abortReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'cancelled';
}

/**
 * A pool of warm sandbox slots, each serving one job at a time. Jobs queue FIFO; a slot that dies
 * (or is recycled after `recycleAfter` jobs, or after any fault) is restarted at once so the pool
 * stays warm. The only failures it reports are its own, as SandboxError (→ ABORTED).
 */
export class Sandbox implements SandboxPort {
  readonly workers: number;
  readonly mode: SandboxMode;
  readonly cgroups: CgroupSupport;
  private readonly slots: SlotState[];
  private readonly queue: Task[] = [];
  /** One abort listener per signal, not per task: a batch of 8,192 samples shares one signal. */
  private readonly bySignal = new WeakMap<AbortSignal, Set<Task>>();
  private readonly harnessDir: string;
  private readonly instance = instances++;
  private closed = false;
  private readonly removals = new Set<Promise<void>>();
  /** Every slot process not yet exited, retiring ones included. */
  private readonly live = new Set<Slot>();

  private constructor(
    private readonly config: SandboxConfigSection,
    private readonly observer: SandboxObserver,
  ) {
    this.workers = Math.min(MAX_SLOTS, config.workers === 'auto' ? availableParallelism() : config.workers);
    this.mode = resolveMode(config.mode);
    this.cgroups = detectCgroups(config.cgroups);
    this.harnessDir = harnessDir();
    const block = ((process.pid % 4096) * 4 + (this.instance % 4)) * MAX_SLOTS;
    this.slots = Array.from({ length: this.workers }, (_, index) => ({
      index,
      uid: config.uidBase + block + index,
      generation: 0,
      slot: null,
      starting: false,
      busy: false,
      restartPending: false,
      failures: 0,
      lastError: '',
      cgroup: null,
    }));
  }

  /**
   * Starts every slot; rejects if the machine cannot run the sandbox at all. `observer` hears of
   * slot starts, kills and busy slots (the server's metrics).
   */
  static async start(config: SandboxConfigSection, observer: SandboxObserver = UNOBSERVED_SANDBOX): Promise<Sandbox> {
    if (process.platform !== 'linux') throw new SandboxError('sandbox_unsupported', 'the sandbox needs Linux');
    if (config.mode === 'root' && process.getuid?.() !== 0) {
      throw new SandboxError(
        'sandbox_requires_root',
        'sandbox.mode: root needs Verdict to run as root (per-slot host uids); "user" runs unprivileged through user namespaces (see services/sandbox/README.md)',
      );
    }
    for (const [key, file] of [['bwrap', config.bwrap], ['python', config.python]] as const) {
      if (!path.isAbsolute(file) || !existsSync(file)) {
        throw new SandboxError('sandbox_start_failed', `sandbox.${key}: ${file} does not exist (an absolute path is required)`);
      }
    }
    const sandbox = new Sandbox(config, observer);
    await Promise.all(sandbox.slots.map((state) => sandbox.startSlot(state)));
    if (!sandbox.slots.some((s) => s.slot?.alive)) {
      await sandbox.close();
      throw new SandboxError('sandbox_start_failed', sandbox.slots[0]?.lastError ?? 'no slot started');
    }
    return sandbox;
  }

  describe(): string {
    return `${this.workers} warm slots, ${this.mode} mode, ${this.cgroups.description}, python ${this.config.python}`;
  }

  runAsserts(job: AssertJob, signal: AbortSignal): Promise<TestReport> {
    const limits = this.limits(job.limits);
    const message: JsonObject = { op: 'asserts', code: job.code, tests: [...job.tests], limits };
    if (job.fnName !== undefined) message.fn_name = job.fnName;
    if (job.setup !== undefined) message.setup = job.setup;
    return this.submit(message, this.jobTimeout(limits, job.tests.length), signal).then(toTestReport);
  }

  runStdio(job: StdioJob, signal: AbortSignal): Promise<TestReport> {
    const limits = this.limits(job.limits);
    const tests = job.tests.map((t) => ({ stdin: t.stdin, stdout: t.stdout }));
    const message: JsonObject = { op: 'stdio', code: job.code, tests, limits };
    // Each stdio test is a fresh process: allow for its start as well as its budget.
    return this.submit(message, this.jobTimeout(limits, job.tests.length * 2), signal).then(toTestReport);
  }

  callFunction(request: CallRequest, signal: AbortSignal): Promise<CallResult> {
    const limits = this.limits(request.limits);
    const message: JsonObject = { op: 'call', source: request.source, entry: request.entry, args: request.args, limits };
    return this.submit(message, this.jobTimeout(limits, 1), signal).then(toCallResult);
  }

  /** Jobs queued or running. */
  get pending(): number {
    return this.queue.length + this.slots.filter((s) => s.busy).length;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const task of this.queue.splice(0)) this.settle(task, new SandboxError('sandbox_closed', 'sandbox shut down'));
    // Every slot, starting ones included, is killed as a whole process group and waited for.
    await Promise.all([...this.live].map((slot) => slot.end()));
    await Promise.all([...this.removals]);
  }

  private limits(request: RequestLimits | undefined): JsonObject {
    const d = this.config.limits;
    const cpuMs = Math.min(d.maxCpuMs, Math.max(10, Math.round(request?.cpuMs ?? d.cpuMs)));
    const memoryMb = Math.min(d.maxMemoryMb, Math.max(16, Math.round(request?.memoryMb ?? d.memoryMb)));
    return {
      cpu_ms: cpuMs,
      // Wall clock only catches runs that sleep or block; CPU time decides ordinary timeouts.
      wall_ms: cpuMs * 2 + 500,
      memory_mb: memoryMb,
      output_bytes: d.outputBytes,
      file_mb: d.fileMb,
      open_files: d.openFiles,
      processes: d.processes,
    };
  }

  /** Node's own guard on one job: only a stuck harness ever reaches it. */
  private jobTimeout(limits: JsonObject, runs: number): number {
    return (runs + 2) * (limits.wall_ms as number) + 15_000;
  }

  private submit(job: JsonObject, timeoutMs: number, signal: AbortSignal): Promise<JsonObject> {
    if (this.closed) return Promise.reject(new SandboxError('sandbox_closed', 'sandbox shut down'));
    if (signal.aborted) return Promise.reject(new SandboxError(abortReason(signal)));
    return new Promise((resolve, reject) => {
      const task: Task = { job, timeoutMs, signal, attempts: 0, resolve, reject, runningOn: null };
      let tasks = this.bySignal.get(signal);
      if (!tasks) {
        const group = new Set<Task>();
        tasks = group;
        this.bySignal.set(signal, group);
        signal.addEventListener('abort', () => this.abortAll(group, signal), { once: true });
      }
      tasks.add(task);
      this.queue.push(task);
      this.dispatch();
    });
  }

  private abortAll(tasks: Set<Task>, signal: AbortSignal): void {
    const queued = new Set([...tasks].filter((t) => t.runningOn === null));
    for (let i = this.queue.length - 1; i >= 0; i--) if (queued.has(this.queue[i]!)) this.queue.splice(i, 1);
    for (const task of tasks) {
      if (task.runningOn) {
        task.runningOn.kill(); // cut short: the slot restarts, the sample is ABORTED
        this.observer.slotKilled(abortReason(signal));
      } else this.settle(task, new SandboxError(abortReason(signal)));
    }
  }

  private settle(task: Task, result: JsonObject | SandboxError): void {
    this.bySignal.get(task.signal)?.delete(task);
    if (result instanceof SandboxError) task.reject(result);
    else task.resolve(result);
  }

  private dispatch(): void {
    for (const state of this.slots) {
      if (this.queue.length === 0) return;
      if (state.busy || state.starting || !state.slot?.alive) continue;
      void this.run(state, this.queue.shift()!);
    }
  }

  private async run(state: SlotState, task: Task): Promise<void> {
    const slot = state.slot!;
    state.busy = true;
    this.observer.slotBusy(1);
    task.runningOn = slot;
    task.attempts++;
    let outcome: JsonObject | SandboxError;
    try {
      outcome = await slot.request(task.job, task.timeoutMs);
    } catch (error) {
      outcome = error instanceof SandboxError ? error : new SandboxError('sandbox_error', String(error));
    }
    task.runningOn = null;
    state.busy = false;
    this.observer.slotBusy(-1);
    if (!(outcome instanceof SandboxError) && typeof outcome.fault === 'string') {
      outcome = new SandboxError('sandbox_fault', `sandbox fault: ${outcome.fault}`);
    }
    // A slot that faulted, died, or asked to be recycled takes no further job: it is detached at
    // once (its judge may still be exiting) and a fresh one starts in its place.
    const spent =
      outcome instanceof SandboxError || outcome.recycle === true || slot.jobs >= this.config.recycleAfter;
    if (spent && state.slot === slot) {
      state.slot = null;
      if (outcome instanceof SandboxError) {
        slot.kill();
        // A cancelled task's kill was counted where it was cut short (abortAll).
        if (!task.signal.aborted) this.observer.slotKilled(outcome.reason);
      } else slot.retire();
      this.restartLater(state);
    }
    if (task.signal.aborted) this.settle(task, new SandboxError(abortReason(task.signal)));
    else if (this.closed) this.settle(task, new SandboxError('sandbox_closed', 'sandbox shut down'));
    else if (outcome instanceof SandboxError && outcome.reason !== 'sandbox_timeout' && task.attempts < MAX_ATTEMPTS) {
      this.queue.unshift(task);
    } else this.settle(task, outcome);
    this.dispatch();
  }

  private async startSlot(state: SlotState): Promise<void> {
    if (this.closed || state.starting || state.slot?.alive) return;
    state.starting = true;
    state.generation++;
    const limits = this.config.limits;
    state.cgroup = this.cgroups.create(`verdict-sandbox-${process.pid}-${this.instance}-${state.index}-${state.generation}`, {
      pidsMax: limits.processes * 2 + 16,
      memoryBytes: (limits.memoryMb + limits.tmpfsMb + 256) * 1024 * 1024,
    });
    const slot = new Slot(
      slotCommand({
        bwrap: this.config.bwrap,
        python: this.config.python,
        mode: this.mode,
        harnessDir: this.harnessDir,
        uid: state.uid,
        gid: state.uid,
        tmpfsBytes: limits.tmpfsMb * 1024 * 1024,
        cgroupProcs: state.cgroup?.procsFiles ?? [],
      }),
    );
    const cgroup = state.cgroup;
    this.live.add(slot);
    slot.onceExited(() => {
      this.live.delete(slot);
      if (cgroup) {
        const removal = cgroup.remove().finally(() => this.removals.delete(removal));
        this.removals.add(removal);
      }
      if (state.slot === slot) state.slot = null;
      if (!this.closed && !state.starting) this.restartLater(state);
    });
    try {
      await slot.start();
      this.observer.slotStarted();
      state.slot = slot;
      state.failures = 0;
    } catch (error) {
      state.failures++;
      state.lastError = error instanceof Error ? error.message : String(error);
      slot.kill();
    } finally {
      state.starting = false;
    }
    if (this.closed) slot.kill();
    if (!state.slot) {
      this.failQueueIfNothingRuns();
      this.restartLater(state);
    }
    this.dispatch();
  }

  private restartLater(state: SlotState): void {
    if (this.closed || state.starting || state.restartPending || state.slot?.alive) return;
    state.restartPending = true;
    const delay = state.failures === 0 ? 0 : Math.min(5_000, 100 * 2 ** Math.min(state.failures, 6));
    setTimeout(() => {
      state.restartPending = false;
      void this.startSlot(state);
    }, delay).unref();
  }

  /** When every slot failed its last start, queued jobs would wait forever: answer them now. */
  private failQueueIfNothingRuns(): void {
    if (this.slots.some((s) => s.starting || s.slot?.alive)) return;
    const reason = this.slots.find((s) => s.lastError)?.lastError ?? 'no sandbox slot could start';
    for (const task of this.queue.splice(0)) this.settle(task, new SandboxError('sandbox_start_failed', reason));
  }
}
