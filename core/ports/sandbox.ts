import type { Json, JsonObject } from '../json';
import { aborted, type Outcome } from '../sample';

/**
 * The sandbox port: what `code`, `puzzle` and python rubrics of `if` see of the Python sandbox
 * (`env.services.sandbox`). services/sandbox implements it; nothing here knows bubblewrap.
 */

/** What a request may set per run; everything else comes from the service config. */
export interface RequestLimits {
  cpuMs?: number;
  memoryMb?: number;
}

export interface AssertJob {
  /** The candidate's module source. */
  code: string;
  /** Test statements (usually one `assert` each), evaluated by the judge, never by the candidate. */
  tests: readonly string[];
  /** The entry point: always taken from the candidate, even if it shadows a builtin. */
  fnName?: string;
  /** Trusted label code (helpers, imports) run on the judge's side before the tests. */
  setup?: string;
  limits?: RequestLimits;
}

export interface StdioTest {
  stdin: string;
  stdout: string;
}

export interface StdioJob {
  code: string;
  tests: readonly StdioTest[];
  limits?: RequestLimits;
}

/**
 * Why a test failed. `time`, `memory`, `output` are the candidate's limits; `died` (it exited or was
 * killed mid-test), `disrupted` (it took down its own zygote), `protocol` (it wrote garbage on its
 * reply pipe) are also the candidate's doing, so they fail the test like any wrong answer.
 */
export type FailureReason =
  | 'assertion_failed'
  | 'error'
  | 'exited'
  | 'wrong_answer'
  | 'runtime_error'
  | 'time'
  | 'memory'
  | 'output'
  | 'died'
  | 'disrupted'
  | 'protocol';

export interface TestFailure {
  /** Position in the tests given (0 when the module failed to load). */
  index: number;
  reason: FailureReason;
  /** Error class and message, truncated; '' for a plain wrong answer. */
  error: string;
  /** The module raised or exited while loading, before any test. */
  stage?: 'load';
  /** Assert mode: repr of the last value the candidate returned in the test; stdio: its output. Truncated. */
  got?: string | null;
  /** Stdio mode: the test's input and expected output, truncated. */
  stdin?: string;
  expected?: string;
}

/** Tests run in order and stop at the first failure: `passed` counts the ones before it. */
export interface TestReport {
  passed: number;
  total: number;
  /** The candidate's code does not compile: no test ran. */
  compileError?: string;
  failure?: TestFailure;
  /** The label's tests or setup cannot be run as given: our data is wrong (INVALID). */
  labelError?: { field: string; error: string };
}

export interface CallRequest {
  source: string;
  entry: string;
  args: Json[];
  limits?: RequestLimits;
}

/**
 * The contract for label-supplied Python (puzzle checkers, IF python rubrics). `compile_error`
 * also covers a module that raises while loading (it cannot depend on the arguments).
 */
export type CallResult =
  | { kind: 'returned'; value: Json }
  | { kind: 'raised'; error: string }
  | { kind: 'compile_error'; error: string }
  | { kind: 'missing_entry'; error: string }
  | { kind: 'limit'; limit: 'time' | 'memory' | 'output' };

/** The narrow interface verifiers see as `env.services.sandbox`. */
export interface SandboxPort {
  runAsserts(job: AssertJob, signal: AbortSignal): Promise<TestReport>;
  runStdio(job: StdioJob, signal: AbortSignal): Promise<TestReport>;
  /** Rejects (with SandboxError) only when the sandbox itself fails. */
  callFunction(request: CallRequest, signal: AbortSignal): Promise<CallResult>;
}

/** The sandbox could not run the job (failed start, dead worker, closed pool, deadline): ABORTED. */
export class SandboxError extends Error {
  constructor(
    readonly reason: string,
    message: string = reason,
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}

/** The ABORTED outcome for a sandbox that failed the job itself: never a reward. */
export function sandboxAborted(error: unknown, details: JsonObject = {}): Outcome {
  if (error instanceof SandboxError) return aborted(error.reason, { ...details, error: error.message });
  return aborted('sandbox_error', { ...details, error: error instanceof Error ? error.message : String(error) });
}
