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

/** Rubrics must be deterministic; the one source of randomness an isolate offers is removed. */
const PRELUDE = 'Math.random = () => { throw new Error("Math.random is not available to rubrics"); };';

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
    const timeout = Math.min(request.limits?.timeoutMs ?? this.config.timeoutMs, this.config.timeoutMs * 10);
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
    try {
      let fn: ivm.Reference;
      try {
        const script = await isolate.compileScript(`(${request.source}\n)`);
        fn = (await script.run(context, { timeout, reference: true })) as ivm.Reference;
      } catch (error) {
        return this.failure(isolate, error, 'compile_error');
      }
      if (fn.typeof !== 'function') return { kind: 'compile_error', error: `the source evaluates to a ${fn.typeof}, not a function` };
      try {
        const value = (await fn.apply(undefined, request.args, {
          arguments: { copy: true },
          result: { copy: true },
          timeout,
        })) as Json;
        return { kind: 'returned', value: value === undefined ? null : value };
      } catch (error) {
        return this.failure(isolate, error, 'raised');
      }
    } finally {
      if (!isolate.isDisposed) isolate.dispose();
    }
  }

  private failure(isolate: ivm.Isolate, error: unknown, kind: 'raised' | 'compile_error'): JsCallResult {
    if (isolate.isDisposed) return { kind: 'limit', limit: 'memory' };
    if (errorParts(error)?.message === TIMED_OUT) return { kind: 'limit', limit: 'time' };
    return { kind, error: message(error) };
  }
}
