import { z } from 'zod';
import { checkAgainst } from '../../core/label';
import { invalid, ok, type Sample } from '../../core/sample';
import { finalText, lastBoxed } from '../../core/text';
import { defineAsync } from '../../core/verifier';
import { judgeAborted, judgeMissing } from '../../core/ports/judge';
import { DEFAULT_PROMPT, goldText, PLACEHOLDERS, renderPrompt, searchGradeSchema } from './prompt';
import { countToolCalls, messageText, searchMetadata, toolCallCounts, type SearchMetadata, type ToolCallCounts } from './trajectory';

/** The judge endpoint this verifier asks (`judge.endpoints.search` in the config). */
export const JUDGE_ENDPOINT = 'search';

/** Termination reasons that mean the trajectory ran out of budget (tool calls, turns, tokens, context). */
export const BUDGET_TERMINATIONS = [
  'budget',
  'budget_exhausted',
  'max_tool_calls',
  'max_turns',
  'max_tokens',
  'token_budget',
  'context_length',
  'context_overflow',
  'length',
];

/** Characters of the judge's reasoning kept in `details`. */
const REASONING_CHARS = 500;

export const searchLabel = z.strictObject({
  question: z.string().min(1).describe('The question the agent researched'),
  answer: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1)], {
      error: (issue) => (issue.input === undefined ? 'required' : 'expected a string or a non-empty list of strings'),
    })
    .describe('Ground truth: a string, or the items of a list answer'),
  tool_calls: toolCallCounts.optional().describe('Explicit tool-call counts; else metadata.tool_calls, else counted from metadata.messages'),
  budget_penalty: z.number().max(0).default(-0.1).describe('Reward when the trajectory ran out of budget without a final answer'),
  budget_terminations: z.array(z.string()).default(BUDGET_TERMINATIONS).describe('metadata.termination values that mean out of budget'),
  min_successful_calls: z.number().int().min(0).default(2).describe('Successful tool calls a positive reward needs'),
  prompt_template: z
    .string()
    .refine((t) => PLACEHOLDERS.every((p) => t.includes(p)), { message: `must contain ${PLACEHOLDERS.join(', ')}` })
    .optional()
    .describe('Judge prompt; default documented in verifiers/search/prompt.ts'),
});

type SearchLabel = z.output<typeof searchLabel>;

/**
 * The final assistant message: the response when the sample has one, else the last message of
 * the trajectory if the assistant wrote it (a trajectory ending on a tool result has none).
 */
function finalMessage(sample: Sample, metadata: SearchMetadata): string | null {
  if (sample.response.trim() !== '') return sample.response;
  const last = metadata.messages?.at(-1);
  return last?.role === 'assistant' ? messageText(last) : null;
}

function counts(label: SearchLabel, metadata: SearchMetadata): ToolCallCounts {
  return label.tool_calls ?? metadata.tool_calls ?? countToolCalls(metadata.messages ?? [], metadata.tools);
}

export const search = defineAsync({
  name: 'search',
  version: '1.0.0',
  description:
    'Search agent: an LLM judge grades the last \\boxed{} of the final message against the ground truth on [0,1]; ' +
    'no answer → 0 (budget_penalty when out of budget); under 2 successful tool calls → 0; scaled by 1 − 0.5·malformed/total',
  label: searchLabel,
  async score({ label, sample }, env) {
    const meta = checkAgainst(searchMetadata, sample.metadata, 'metadata');
    if (!meta.ok) return invalid(meta.error);
    const metadata = meta.value;
    const calls = counts(label, metadata);
    const toolCalls = { ...calls };
    const termination = metadata.termination ?? null;

    // Rule 1: only an explicit final answer reaches the judge.
    const message = finalMessage(sample, metadata);
    const text = message === null ? null : finalText(message);
    const answer = text === null ? null : lastBoxed(text)?.trim() ?? null;
    if (answer === null || answer === '') {
      const outOfBudget = termination !== null && label.budget_terminations.includes(termination);
      return ok(outOfBudget ? label.budget_penalty : 0, outOfBudget ? 'no_answer_budget' : 'no_answer', {
        tool_calls: toolCalls,
        termination,
      });
    }

    // Rule 2: the judge's score is never negative, so under the gate the reward is 0 whatever it says.
    if (calls.successful < label.min_successful_calls) {
      return ok(0, 'too_few_tool_calls', { extracted: answer, tool_calls: toolCalls, termination });
    }

    // Rule 3.
    const judge = env.services.judges?.get(JUDGE_ENDPOINT);
    if (!judge) return judgeMissing(JUDGE_ENDPOINT);
    const prompt = renderPrompt(label.prompt_template ?? DEFAULT_PROMPT, {
      question: label.question,
      correctAnswer: goldText(label.answer),
      response: answer,
    });
    const verdict = await judge.judge(
      { messages: [{ role: 'user', content: prompt }], schema: searchGradeSchema },
      { signal: env.signal },
    );
    if (!verdict.ok) return judgeAborted(verdict, { extracted: answer, tool_calls: toolCalls });

    // Rule 4.
    const factor = calls.total === 0 ? 1 : 1 - (0.5 * calls.malformed) / calls.total;
    const { score, reasoning } = verdict.value;
    return ok(score * factor, 'judged', {
      extracted: answer,
      tool_calls: toolCalls,
      judge_score: score,
      factor,
      judge_reasoning: reasoning.length > REASONING_CHARS ? `${reasoning.slice(0, REASONING_CHARS)}…` : reasoning,
      judge_source: verdict.source,
      termination,
    });
  },
});
