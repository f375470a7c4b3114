import type { JsonObject } from '../../core/json';
import { invalid, ok, type Outcome } from '../../core/sample';
import { finalText } from '../../core/text';
import { defineAsync } from '../../core/verifier';
import { type RequestLimits, sandboxAborted, type TestReport } from '../../core/ports/sandbox';
import { lastPythonBlock } from './extract';
import { codeLabel, type CodeLabel } from './label';
import { selectTests, testsSeed } from './subsample';

/** The reason of a failed sample, by why its first failing test failed. */
const FAILURE_REASON: Record<string, string> = {
  assertion_failed: 'wrong_answer',
  wrong_answer: 'wrong_answer',
  error: 'runtime_error',
  runtime_error: 'runtime_error',
  exited: 'runtime_error',
  time: 'time_limit',
  memory: 'memory_limit',
  output: 'output_limit',
  died: 'crashed',
  disrupted: 'crashed',
  protocol: 'crashed',
};

function errorClass(error: string): string | null {
  const m = /^([A-Za-z_][\w.]*)(?::|$)/.exec(error.trim());
  return m ? m[1]! : null;
}

function requestLimits(label: CodeLabel): RequestLimits {
  const limits: RequestLimits = {};
  if (label.time_limit_ms !== undefined) limits.cpuMs = label.time_limit_ms;
  if (label.memory_limit_mb !== undefined) limits.memoryMb = label.memory_limit_mb;
  return limits;
}

/** Turns the sandbox's report into the sample's outcome; `selected` maps report indices to label indices. */
function outcomeOf(report: TestReport, label: CodeLabel, selected: number[]): Outcome {
  if (report.labelError) {
    const m = /^tests\[(\d+)\]$/.exec(report.labelError.field);
    const field = m ? `tests[${selected[Number(m[1])] ?? m[1]}]` : report.labelError.field;
    return invalid(`label.${field}: ${report.labelError.error}`);
  }
  const details: JsonObject = { mode: label.mode, passed: report.passed, total: report.total };
  if (selected.length < label.tests.length) details.tests_in_label = label.tests.length;
  if (report.compileError !== undefined) {
    return ok(0, 'compile_error', { ...details, error: report.compileError, error_class: errorClass(report.compileError) });
  }
  const f = report.failure;
  if (!f) return ok(report.passed === report.total ? 1 : 0, report.passed === report.total ? 'passed' : 'incomplete', details);
  const index = selected[f.index] ?? f.index;
  const failure: JsonObject = { index, reason: f.reason, error: f.error };
  const cls = ['error', 'runtime_error', 'exited', 'memory'].includes(f.reason) ? errorClass(f.error) : null;
  if (cls) failure.error_class = cls;
  if (f.stage) failure.stage = f.stage;
  if (label.mode === 'assert' && f.stage !== 'load') {
    const test = label.tests[index];
    if (test !== undefined) failure.test = test.length > 300 ? `${test.slice(0, 300)}…` : test;
  }
  if (f.got !== undefined) failure.got = f.got;
  if (f.stdin !== undefined) failure.input = f.stdin;
  if (f.expected !== undefined) failure.expected = f.expected;
  return ok(0, FAILURE_REASON[f.reason] ?? 'failed', { ...details, first_failure: failure });
}

export const code = defineAsync({
  name: 'code',
  version: '1.0.0',
  audit: ['programs'],
  description:
    'Coding: the last ```python block after </think>, run in the sandbox against assert tests (judged outside the candidate) or stdin/stdout pairs; 1 only if every selected test (≤ 50, SHA-256-seeded) passes',
  label: codeLabel,
  requires: ['sandbox'],
  example: { label: { mode: 'assert', tests: ['assert add(1, 2) == 3', 'assert add(-1, 1) == 0'] }, response: '```python\ndef add(a, b):\n    return a + b\n```', reward: 1 },
  async score({ response, label }, env) {
    const text = finalText(response);
    if (text === null) return ok(0, 'no_code', { unclosed_think: true });
    const source = lastPythonBlock(text);
    if (source === null || source.trim() === '') return ok(0, 'no_code');
    const sandbox = env.services.sandbox!;

    const selected = selectTests(label.tests.length, () => label.problem_id ?? testsSeed(label.tests));
    const limits = requestLimits(label);
    try {
      const report =
        label.mode === 'assert'
          ? await sandbox.runAsserts(
              {
                code: source,
                tests: selected.map((i) => label.tests[i]!),
                ...(label.fn_name !== undefined ? { fnName: label.fn_name } : {}),
                ...(label.setup !== undefined ? { setup: label.setup } : {}),
                limits,
              },
              env.signal,
            )
          : await sandbox.runStdio({ code: source, tests: selected.map((i) => label.tests[i]!), limits }, env.signal);
      return outcomeOf(report, label, selected);
    } catch (error) {
      return sandboxAborted(error);
    }
  },
});
