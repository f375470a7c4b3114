import { z } from 'zod';
import { defineJudgeSchema } from '../../core/ports/judge';

/**
 * The default grading prompt. `{question}`, `{correct_answer}` and `{response}` are filled in once
 * each (a placeholder inside a filled-in value stays as it is). The fields sit in tags so the
 * judge cannot mistake an answer's text for instructions.
 */
export const DEFAULT_PROMPT = `You are grading the final answer of a research agent against the ground truth.

<question>
{question}
</question>

<correct_answer>
{correct_answer}
</correct_answer>

<response>
{response}
</response>

Judge only whether the response agrees with the correct answer. Do not solve the question yourself and do not reward effort or explanations.
- Score 1 when the response means the same as the correct answer: equivalent names, spellings, units or formats count, and numbers may differ by a small rounding margin.
- Score 0 when the response is wrong, contradicts the correct answer, hedges between several candidates, or gives no answer.
- When the correct answer is a list or a description, give partial credit: the fraction of the required items or key facts the response gets right, lowered for wrong items it adds.
Reply in JSON with "reasoning" (one or two sentences) and "score" (a number from 0 to 1).`;

export const PLACEHOLDERS = ['{question}', '{correct_answer}', '{response}'] as const;

export function renderPrompt(template: string, fields: { question: string; correctAnswer: string; response: string }): string {
  const values: Record<string, string> = {
    '{question}': fields.question,
    '{correct_answer}': fields.correctAnswer,
    '{response}': fields.response,
  };
  return template.replace(/\{(?:question|correct_answer|response)\}/g, (token) => values[token] ?? token);
}

/** A list answer goes to the judge one item per line, which is what partial credit counts. */
export function goldText(answer: string | readonly string[]): string {
  return typeof answer === 'string' ? answer : answer.map((item) => `- ${item}`).join('\n');
}

/**
 * The judge's reply. `reasoning` comes first because constrained decoding writes fields in schema
 * order: the judge states why before it commits to a number.
 */
export const searchGradeSchema = defineJudgeSchema(
  'search_answer_grade',
  z.strictObject({ reasoning: z.string(), score: z.number().min(0).max(1) }),
);
