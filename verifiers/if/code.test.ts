import type { Json } from '../../core/json';
import type { JsCallRequest, JsCallResult, JsIsolatePort } from '../../core/ports/js-isolate';
import type { CallRequest, CallResult, SandboxPort } from '../../core/ports/sandbox';
import type { Services, VerifierEnv } from '../../core/verifier';
import { runCodeRubric } from './code';
import type { CodeRubric } from './label';

const never = new AbortController().signal;
const args = { text: 'the response', messages: [{ role: 'user', content: 'hi' }] as Json[] };
const python: CodeRubric = { kind: 'python', source: 'def check(r, m): return True', entry: 'check' };
const js: CodeRubric = { kind: 'js', source: '(r) => true' };

function env(services: Services): VerifierEnv {
  return {
    signal: never,
    services,
    compute: async () => {
      throw new Error('code rubrics compute nothing on the pool');
    },
  };
}

/** A sandbox whose callFunction answers `result` (or rejects with it), recording each request. */
function sandbox(result: CallResult | Error, calls: CallRequest[] = []): SandboxPort {
  const refuse = async (): Promise<never> => {
    throw new Error('not used by code rubrics');
  };
  return {
    runAsserts: refuse,
    runStdio: refuse,
    callFunction: async (request) => {
      calls.push(request);
      if (result instanceof Error) throw result;
      return result;
    },
  };
}

function isolate(result: JsCallResult | Error, calls: JsCallRequest[] = []): JsIsolatePort {
  return {
    call: async (request) => {
      calls.push(request);
      if (result instanceof Error) throw result;
      return result;
    },
  };
}

const runPython = (result: CallResult | Error, index = 2) => runCodeRubric(python, index, args, env({ sandbox: sandbox(result) }));
const runJs = (result: JsCallResult | Error, index = 2) => runCodeRubric(js, index, args, env({ jsIsolate: isolate(result) }));

describe('code rubrics: what the function did decides the verdict', () => {
  it('calls the entry point with (response, messages)', async () => {
    const calls: CallRequest[] = [];
    await runCodeRubric(python, 0, args, env({ sandbox: sandbox({ kind: 'returned', value: true }, calls) }));
    expect(calls).toEqual([{ source: python.source, entry: 'check', args: [args.text, args.messages] }]);
    const jsCalls: JsCallRequest[] = [];
    await runCodeRubric(js, 0, args, env({ jsIsolate: isolate({ kind: 'returned', value: true }, jsCalls) }));
    expect(jsCalls).toEqual([{ source: js.source, args: [args.text, args.messages] }]);
  });

  it('passes only on true: false, a truthy value or a string "true" fail, naming what came back', async () => {
    expect(await runPython({ kind: 'returned', value: true })).toEqual({ kind: 'verdict', pass: true, reason: '' });
    expect(await runJs({ kind: 'returned', value: false })).toEqual({ kind: 'verdict', pass: false, reason: 'the rubric function returned false' });
    expect(await runPython({ kind: 'returned', value: 1 })).toEqual({ kind: 'verdict', pass: false, reason: 'the rubric function returned 1, not a boolean' });
    expect(await runJs({ kind: 'returned', value: 'true' })).toEqual({ kind: 'verdict', pass: false, reason: 'the rubric function returned "true", not a boolean' });
    expect(await runJs({ kind: 'returned', value: null })).toMatchObject({ pass: false, reason: 'the rubric function returned null, not a boolean' });
  });

  it('cuts a long returned value in the reason', async () => {
    const r = await runPython({ kind: 'returned', value: 'x'.repeat(1000) });
    expect(r.kind === 'verdict' && r.reason.length).toBeLessThan(260);
  });

  it('fails the rubric (not the sample) when the function raises or hits a limit on this response', async () => {
    expect(await runPython({ kind: 'raised', error: 'ZeroDivisionError: division by zero' })).toEqual({
      kind: 'verdict',
      pass: false,
      reason: 'the rubric function raised on this response: ZeroDivisionError: division by zero',
    });
    expect(await runJs({ kind: 'limit', limit: 'memory' })).toEqual({
      kind: 'verdict',
      pass: false,
      reason: 'the rubric function exceeded its memory limit on this response',
    });
    expect(await runPython({ kind: 'limit', limit: 'output' })).toMatchObject({ pass: false, reason: expect.stringContaining('output limit') });
  });

  it('blames the label for source that does not compile or lacks its entry point, naming the field', async () => {
    expect(await runPython({ kind: 'compile_error', error: 'SyntaxError: invalid syntax' })).toEqual({
      kind: 'invalid',
      reason: 'label.rubrics[2].source: does not compile: SyntaxError: invalid syntax',
    });
    expect(await runPython({ kind: 'missing_entry', error: 'no function "check"' })).toEqual({
      kind: 'invalid',
      reason: 'label.rubrics[2].entry: no function "check"',
    });
    expect(await runJs({ kind: 'compile_error', error: 'not a function' }, 5)).toEqual({
      kind: 'invalid',
      reason: 'label.rubrics[5].source: does not compile: not a function',
    });
  });

  it('aborts when the machinery fails, or is not configured, naming which', async () => {
    expect(await runPython(new Error('worker died'))).toEqual({ kind: 'aborted', reason: 'sandbox_error', error: 'worker died' });
    expect(await runJs(new Error('isolate pool closed'))).toEqual({ kind: 'aborted', reason: 'js_isolate_error', error: 'isolate pool closed' });
    // Each language needs its own service: a sandbox does not run js, an isolate does not run python.
    expect(await runCodeRubric(python, 0, args, env({ jsIsolate: isolate({ kind: 'returned', value: true }) }))).toEqual({
      kind: 'aborted',
      reason: 'service_unavailable',
      error: 'sandbox',
    });
    expect(await runCodeRubric(js, 0, args, env({ sandbox: sandbox({ kind: 'returned', value: true }) }))).toEqual({
      kind: 'aborted',
      reason: 'service_unavailable',
      error: 'jsIsolate',
    });
  });
});
