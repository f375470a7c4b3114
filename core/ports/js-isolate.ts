import type { Json } from '../json';

/**
 * The js-isolate port: what `js` rubrics of `if` see (`env.services.jsIsolate`).
 * services/js-isolate implements it with isolated-vm.
 */

/**
 * The outcome of calling label-supplied JavaScript. `compile_error` covers source that does not
 * parse or does not evaluate to a function (our data is wrong); `raised` and `limit` are what the
 * function did on this input.
 */
export type JsCallResult =
  | { kind: 'returned'; value: Json }
  | { kind: 'raised'; error: string }
  | { kind: 'compile_error'; error: string }
  | { kind: 'limit'; limit: 'time' | 'memory' };

export interface JsCallRequest {
  /** A function expression: `(response, messages) => response.length < 100`. */
  source: string;
  args: Json[];
  limits?: { timeoutMs?: number; memoryMb?: number };
}

/** The narrow interface verifiers see as `env.services.jsIsolate`. */
export interface JsIsolatePort {
  /** Rejects only when the isolate machinery itself fails (or the call is cancelled while queued). */
  call(request: JsCallRequest, signal: AbortSignal): Promise<JsCallResult>;
}
