import type { Json } from '../../core/json';
import type { VerifierEnv } from '../../core/verifier';
import type { CodeRubric } from './label';

/**
 * Runs one code rubric (`python` in the sandbox, `js` in an isolate) as f(response, messages).
 * Only `true` passes. What the function does on the model's response — raise, return something
 * else, run out of time or memory — fails the rubric with the reason; source that does not compile
 * or lacks its entry point is our label's fault (INVALID); the machinery failing is ABORTED.
 */
export type CodeOutcome =
  | { kind: 'verdict'; pass: boolean; reason: string }
  | { kind: 'invalid'; reason: string }
  | { kind: 'aborted'; reason: string; error: string };

type Called =
  | { kind: 'returned'; value: Json }
  | { kind: 'raised'; error: string }
  | { kind: 'compile_error'; error: string }
  | { kind: 'missing_entry'; error: string }
  | { kind: 'limit'; limit: string };

function fromCall(result: Called, path: string, entryPath: string): CodeOutcome {
  switch (result.kind) {
    case 'returned':
      if (result.value === true) return { kind: 'verdict', pass: true, reason: '' };
      if (result.value === false) return { kind: 'verdict', pass: false, reason: 'the rubric function returned false' };
      return { kind: 'verdict', pass: false, reason: `the rubric function returned ${JSON.stringify(result.value).slice(0, 200)}, not a boolean` };
    case 'raised':
      return { kind: 'verdict', pass: false, reason: `the rubric function raised on this response: ${result.error}` };
    case 'limit':
      return { kind: 'verdict', pass: false, reason: `the rubric function exceeded its ${result.limit} limit on this response` };
    case 'compile_error':
      return { kind: 'invalid', reason: `${path}: does not compile: ${result.error}` };
    case 'missing_entry':
      return { kind: 'invalid', reason: `${entryPath}: ${result.error}` };
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function runCodeRubric(
  rubric: CodeRubric,
  index: number,
  args: { text: string; messages: Json[] },
  env: VerifierEnv,
): Promise<CodeOutcome> {
  const path = `label.rubrics[${index}].source`;
  if (rubric.kind === 'python') {
    const sandbox = env.services.sandbox;
    if (!sandbox) return { kind: 'aborted', reason: 'service_unavailable', error: 'sandbox' };
    try {
      const result = await sandbox.callFunction({ source: rubric.source, entry: rubric.entry, args: [args.text, args.messages] }, env.signal);
      return fromCall(result, path, `label.rubrics[${index}].entry`);
    } catch (error) {
      return { kind: 'aborted', reason: 'sandbox_error', error: errorText(error) };
    }
  }
  const isolate = env.services.jsIsolate;
  if (!isolate) return { kind: 'aborted', reason: 'service_unavailable', error: 'jsIsolate' };
  try {
    const result = await isolate.call({ source: rubric.source, args: [args.text, args.messages] }, env.signal);
    return fromCall(result, path, path);
  } catch (error) {
    return { kind: 'aborted', reason: 'js_isolate_error', error: errorText(error) };
  }
}
