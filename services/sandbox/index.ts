import type { SandboxService } from './types';

export { sandboxConfigSection, type SandboxConfigSection } from './config';
export { sandboxAborted, sandboxMissing } from './outcome';
export { Sandbox } from './pool';
export {
  type AssertJob,
  type CallRequest,
  type CallResult,
  type FailureReason,
  type RequestLimits,
  SandboxError,
  type SandboxService,
  type StdioJob,
  type StdioTest,
  type TestFailure,
  type TestReport,
} from './types';

declare module '../../core/verifier' {
  interface Services {
    /** The Python sandbox (code, puzzle, IF python rubrics); absent without a `sandbox:` config section. */
    sandbox?: SandboxService;
  }
}
