import { z } from 'zod';
import type { Json, JsonObject } from '../../core/json';
import { type CallResult, SandboxError, type TestReport } from '../../core/ports/sandbox';

// The harness's replies (snake_case, as the Python side writes them). The judge is our own code,
// but a reply that does not parse is a sandbox fault, never a verdict.
const failure = z.object({
  index: z.number().int(),
  reason: z.enum([
    'assertion_failed',
    'error',
    'exited',
    'wrong_answer',
    'runtime_error',
    'time',
    'memory',
    'output',
    'died',
    'disrupted',
    'protocol',
  ]),
  error: z.string(),
  stage: z.literal('load').optional(),
  got: z.string().nullable().optional(),
  stdin: z.string().optional(),
  expected: z.string().optional(),
});

const testReply = z.object({
  passed: z.number().int().min(0),
  total: z.number().int().min(0),
  compile_error: z.string().optional(),
  failure: failure.optional(),
});

const labelErrorReply = z.object({ label_error: z.object({ field: z.string(), error: z.string() }) });

const callReply = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('returned'), value: z.json() }),
  z.object({ kind: z.literal('raised'), error: z.string() }),
  z.object({ kind: z.literal('compile_error'), error: z.string() }),
  z.object({ kind: z.literal('missing_entry'), error: z.string() }),
  z.object({ kind: z.literal('limit'), limit: z.enum(['time', 'memory', 'output']) }),
]);

function unreadable(reply: JsonObject): SandboxError {
  return new SandboxError('sandbox_protocol', `unexpected sandbox reply: ${JSON.stringify(reply).slice(0, 300)}`);
}

export function toTestReport(reply: JsonObject): TestReport {
  const label = labelErrorReply.safeParse(reply);
  if (label.success) return { passed: 0, total: 0, labelError: label.data.label_error };
  const parsed = testReply.safeParse(reply);
  if (!parsed.success) throw unreadable(reply);
  const { passed, total, compile_error: compileError, failure: f } = parsed.data;
  const report: TestReport = { passed, total };
  if (compileError !== undefined) report.compileError = compileError;
  if (f) {
    report.failure = { index: f.index, reason: f.reason, error: f.error };
    if (f.stage) report.failure.stage = f.stage;
    if (f.got !== undefined) report.failure.got = f.got;
    if (f.stdin !== undefined) report.failure.stdin = f.stdin;
    if (f.expected !== undefined) report.failure.expected = f.expected;
  }
  return report;
}

export function toCallResult(reply: JsonObject): CallResult {
  const parsed = callReply.safeParse(reply);
  if (!parsed.success) throw unreadable(reply);
  const r = parsed.data;
  return r.kind === 'returned' ? { kind: 'returned', value: r.value as Json } : r;
}
