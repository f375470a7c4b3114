import { z } from 'zod';
import { checkAgainst } from '../../core/label';
import { invalid, ok, type Sample } from '../../core/sample';
import { finalText, lastBoxed } from '../../core/text';
import { defineAsync } from '../../core/verifier';
import { judgeAborted, judgeMissing } from '../../core/ports/judge';
import { DEFAULT_PROMPT, goldText, PLACEHOLDERS, renderPrompt, searchGradeSchema } from './prompt';
import { countToolCalls, messageText, searchMetadata, toolCallCounts, toolNames, type SearchMetadata, type ToolCallCounts } from './trajectory';
import { afterLastToolResponse, countTextToolCalls, TOOL_FORMAT_OF_CHAT, type TextToolFormat } from './tool-text';
import { CHAT_FORMAT_KEY, chatFormatOf, TOOL_FORMATS, type ChatFormat } from '../../core/transcript';

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
  tool_calls: toolCallCounts.optional().describe('Explicit tool-call counts; else metadata.tool_calls, else counted from metadata.messages and the text trajectory (metadata.tool_format)'),
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

type Counted = { ok: true; counts: ToolCallCounts; textFormat: TextToolFormat | null } | { ok: false; error: string };

/**
 * The tool calls of the trajectory: explicit counts (label, then metadata), else counted from
 * `metadata.messages` (OpenAI tool_calls) plus, when a text format is named, from the response —
 * a trajectory sent as text. With neither messages nor a named format there is nothing to count
 * from, and a 0 by the gate would be a silent false reward: INVALID naming the key instead.
 */
function counts(label: SearchLabel, metadata: SearchMetadata, chat: ChatFormat | null, response: string): Counted {
  const given = label.tool_calls ?? metadata.tool_calls;
  if (given) return { ok: true, counts: given, textFormat: null };
  const named = metadata.tool_format ?? (chat === null ? undefined : TOOL_FORMAT_OF_CHAT[chat]);
  if (named === undefined && metadata.messages === undefined) {
    return {
      ok: false,
      error:
        `metadata.tool_format: required to count the tool calls of a trajectory sent as text (${TOOL_FORMATS.join(', ')}; ` +
        `?tool_format= on a trainer route, or implied by ${CHAT_FORMAT_KEY} chatml/glm4.5), or send metadata.messages or metadata.tool_calls` +
        (chat === null ? '' : ` (${CHAT_FORMAT_KEY} "${chat}" implies none)`),
    };
  }
  const fromMessages = countToolCalls(metadata.messages ?? [], metadata.tools);
  if (named === undefined || named === 'openai') return { ok: true, counts: fromMessages, textFormat: null };
  const fromText = countTextToolCalls(response, named, toolNames(metadata.tools));
  return {
    ok: true,
    textFormat: named,
    counts: {
      total: fromMessages.total + fromText.total,
      successful: fromMessages.successful + fromText.successful,
      malformed: fromMessages.malformed + fromText.malformed,
    },
  };
}

export const search = defineAsync({
  name: 'search',
  version: '1.1.0',
  audit: ['judge-injection'],
  // Rules 1 and 2 (no answer, too few tool calls) and bad metadata need no judge: `score` checks
  // the endpoint it names (judge.endpoints.search) only when the judge decides.
  requires: [],
  uses: ['judge'],
  // The judge decides the reward: the example has none to expect.
  example: {
    label: { question: 'Who wrote Dune?', answer: 'Frank Herbert', tool_calls: { total: 3, successful: 3, malformed: 0 } },
    response: 'It was \\boxed{Frank Herbert}',
    needs: ['judge'],
  },
  description:
    'Search agent: an LLM judge grades the last \\boxed{} of the final message against the ground truth on [0,1]; ' +
    'no answer → 0 (budget_penalty when out of budget); under 2 successful tool calls → 0; scaled by 1 − 0.5·malformed/total',
  label: searchLabel,
  async score({ label, sample }, env) {
    const meta = checkAgainst(searchMetadata, sample.metadata, 'metadata');
    if (!meta.ok) return invalid(meta.error);
    const metadata = meta.value;
    const chat = chatFormatOf(sample.metadata);
    if (!chat.ok) return invalid(chat.error);
    const counted = counts(label, metadata, chat.value, sample.response);
    if (!counted.ok) return invalid(counted.error);
    const calls = counted.counts;
    const toolCalls = { ...calls };
    const termination = metadata.termination ?? null;

    // Rule 1: only an explicit final answer reaches the judge; in a text trajectory, after the last tool result.
    const final = finalMessage(sample, metadata);
    const message = final === null || counted.textFormat === null ? final : afterLastToolResponse(final);
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
