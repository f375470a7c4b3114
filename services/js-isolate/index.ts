import ivm from 'isolated-vm';
import type { Json } from '../../core/json';
import type { JsCallRequest, JsCallResult, JsIsolatePort } from '../../core/ports/js-isolate';
import { Semaphore } from '../resilience/semaphore';
import type { JsIsolateConfigSection } from './config';

export { jsIsolateConfigSection, type JsIsolateConfigSection } from './config';

export class JsIsolateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsIsolateError';
  }
}

const TIMED_OUT = 'Script execution timed out.';

/**
 * Rubrics must be deterministic: the one source of randomness an isolate offers is removed.
 * WebAssembly is removed too: a `WebAssembly.Memory` lives outside the isolate's heap limit (4 GB
 * of host memory from one rubric), and filling it is one native call that no timeout interrupts.
 * `Atomics.wait` goes as well: it is the one way a rubric could take wall time without CPU time,
 * so with it gone only the host's load can hold a call past the wall-clock backstop.
 */
const PRELUDE = [
  'Math.random = () => { throw new Error("Math.random is not available to rubrics"); };',
  'delete globalThis.WebAssembly;',
  'delete Atomics.wait;',
].join('\n');

/**
 * The wall-clock timeout is only a backstop; CPU time decides. A call stopped by it while under its
 * CPU limit was held by the host's load, not by the rubric: ABORTED, never the rubric's failure.
 */
const WALL_PER_CPU = 10;

/** Errors cross from the isolate (and, under test runners, from other realms): read them by shape. */
function errorParts(error: unknown): { name: string; message: string } | null {
  if (typeof error !== 'object' || error === null) return null;
  const { name, message } = error as { name?: unknown; message?: unknown };
  return typeof message === 'string' ? { name: typeof name === 'string' ? name : 'Error', message } : null;
}

function message(error: unknown): string {
  const parts = errorParts(error);
  const text = parts ? `${parts.name}: ${parts.message}` : String(error);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

/**
 * Runs each call in a fresh isolate (a few milliseconds), so no state or exhausted heap carries
 * from one sample to the next; at most `maxConcurrency` isolates exist at once.
 */
export class JsIsolates implements JsIsolatePort {
  private readonly slots: Semaphore;

  constructor(private readonly config: JsIsolateConfigSection) {
    this.slots = new Semaphore(config.maxConcurrency);
  }

  async call(request: JsCallRequest, signal: AbortSignal): Promise<JsCallResult> {
    const release = await this.slots.acquire(signal);
    if (!release) throw new JsIsolateError(`cancelled: ${String(signal.reason)}`);
    try {
      return await this.run(request);
    } finally {
      release();
    }
  }

  private async run(request: JsCallRequest): Promise<JsCallResult> {
    const cpuMs = Math.min(request.limits?.timeoutMs ?? this.config.timeoutMs, this.config.timeoutMs * 10);
    const timeout = cpuMs * WALL_PER_CPU;
    const memoryLimit = Math.max(8, Math.min(request.limits?.memoryMb ?? this.config.memoryMb, 1024));
    let isolate: ivm.Isolate;
    let context: ivm.Context;
    try {
      isolate = new ivm.Isolate({ memoryLimit });
      context = await isolate.createContext();
      await context.eval(PRELUDE);
    } catch (error) {
      throw new JsIsolateError(`isolate start failed: ${message(error)}`);
    }
    // CPU time, not wall time, is the limit, so a verdict does not depend on the machine's load: a
    // watcher stops the isolate once it has used its share, and a call that used more (inside one
    // native call no watcher can interrupt) is over the limit whatever it returned.
    const cpuLimit = BigInt(cpuMs) * 1_000_000n;
    const over = (): boolean => !isolate.isDisposed && isolate.cpuTime > cpuLimit;
    let stoppedForCpu = false;
    const watcher = setInterval(() => {
      if (over()) {
        stoppedForCpu = true;
        isolate.dispose();
      }
    }, Math.max(5, Math.min(50, cpuMs / 10)));
    const failure = (error: unknown, kind: 'raised' | 'compile_error'): JsCallResult => {
      if (stoppedForCpu || over()) return { kind: 'limit', limit: 'time' };
      if (!isolate.isDisposed && errorParts(error)?.message === TIMED_OUT) {
        const used = Number(isolate.cpuTime / 1_000_000n);
        throw new JsIsolateError(`stopped by the wall-clock backstop (${timeout} ms) after ${used} ms of its ${cpuMs} ms of CPU: the host is overloaded`);
      }
      return this.failure(isolate, error, kind);
    };
    try {
      let fn: ivm.Reference;
      try {
        const script = await isolate.compileScript(`(${request.source}\n)`);
        fn = (await script.run(context, { timeout, reference: true })) as ivm.Reference;
      } catch (error) {
        return failure(error, 'compile_error');
      }
      if (fn.typeof !== 'function') return { kind: 'compile_error', error: `the source evaluates to a ${fn.typeof}, not a function` };
      try {
        const value = (await fn.apply(undefined, request.args, {
          arguments: { copy: true },
          result: { copy: true },
          timeout,
        })) as Json;
        if (over()) return { kind: 'limit', limit: 'time' };
        return { kind: 'returned', value: value === undefined ? null : value };
      } catch (error) {
        return failure(error, 'raised');
      }
    } finally {
      clearInterval(watcher);
      if (!isolate.isDisposed) isolate.dispose();
    }
  }

  private failure(isolate: ivm.Isolate, error: unknown, kind: 'raised' | 'compile_error'): JsCallResult {
    if (isolate.isDisposed) return { kind: 'limit', limit: 'memory' };
    return { kind, error: message(error) };
  }
}
