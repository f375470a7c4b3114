import { z } from 'zod';
import type { Json } from '../../core/json';
import { invalid, ok } from '../../core/sample';
import { finalText, lastBoxed } from '../../core/text';
import { defineAsync } from '../../core/verifier';
import { type RequestLimits, sandboxAborted } from '../../core/ports/sandbox';

export const puzzleLabel = z.strictObject({
  checker: z.string().min(1).describe('Python source defining the checker function'),
  function: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a Python identifier')
    .default('check')
    .describe('Name of the checker: f(answer) or f(answer, params) → bool or a score in [0, 1]'),
  params: z.json().optional().describe('Passed as the second argument when present'),
  extract: z.enum(['boxed', 'final_text']).default('boxed').describe('The last \\boxed{} of the final text, or the whole final text'),
  threshold: z.number().min(0).max(1).default(1).describe('Least score that earns reward 1'),
  time_limit_ms: z.number().int().min(10).optional(),
  memory_limit_mb: z.number().int().min(16).optional(),
});

const MAX_ANSWER_DETAIL = 300;

/** A checker's verdict as a score in [0, 1], or null when it returned something else. */
function scoreOf(value: Json): number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1) return value;
  return null;
}

export const puzzle = defineAsync({
  name: 'puzzle',
  version: '1.0.0',
  audit: ['programs'],
  description:
    'Reasoning puzzles: the label\'s Python checker (compiled once per warm sandbox worker) judges the extracted answer; 1 when its score reaches the threshold',
  label: puzzleLabel,
  requires: ['sandbox'],
  example: { label: { checker: 'def check(answer):\n    return int(answer) % 4 == 0' }, response: '\\boxed{12}', reward: 1 },
  async score({ response, label }, env) {
    const text = finalText(response);
    if (text === null) return ok(0, 'no_answer', { unclosed_think: true });
    const answer = label.extract === 'boxed' ? lastBoxed(text)?.trim() ?? null : text.trim();
    if (answer === null || answer === '') return ok(0, 'no_answer');
    const sandbox = env.services.sandbox!;

    const limits: RequestLimits = {};
    if (label.time_limit_ms !== undefined) limits.cpuMs = label.time_limit_ms;
    if (label.memory_limit_mb !== undefined) limits.memoryMb = label.memory_limit_mb;
    const args: Json[] = label.params !== undefined ? [answer, label.params as Json] : [answer];
    const shown = answer.length > MAX_ANSWER_DETAIL ? `${answer.slice(0, MAX_ANSWER_DETAIL)}…` : answer;
    let result;
    try {
      result = await sandbox.callFunction({ source: label.checker, entry: label.function, args, limits }, env.signal);
    } catch (error) {
      return sandboxAborted(error);
    }
    switch (result.kind) {
      case 'compile_error':
        return invalid(`label.checker: does not compile: ${result.error}`);
      case 'missing_entry':
        return invalid(`label.function: no function "${label.function}" in label.checker`);
      // What the checker does on the model's answer is the answer's result: a crash is a 0, never an exit.
      case 'raised':
        return ok(0, 'checker_raised', { answer: shown, error: result.error });
      case 'limit':
        return ok(0, 'checker_limit', { answer: shown, limit: result.limit });
      case 'returned': {
        const score = scoreOf(result.value);
        if (score === null) {
          return ok(0, 'checker_bad_return', { answer: shown, returned: JSON.stringify(result.value).slice(0, 200) });
        }
        const passed = score >= label.threshold;
        return ok(passed ? 1 : 0, passed ? 'accepted' : 'rejected', { answer: shown, score });
      }
    }
  },
});
