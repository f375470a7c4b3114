import { z } from 'zod';
import type { ChatMessage } from '../../core/chat';
import { defineJudgeSchema, type JudgeFailure, type JudgePort, type JudgeResult } from '../../core/ports/judge';
import type { VerifierEnv } from '../../core/verifier';

/*
 * Judge rubrics of the `if` verifier: the prompt, the reply schema and the grading policy (in
 * order, stop at the first unsatisfied rubric) live here, beside the verifier; the judge port only
 * carries messages to an endpoint and a validated reply back.
 */

/** The judge endpoint instruction-following rubrics go to (`judge.endpoints.if` in the config). */
export const IF_JUDGE_ENDPOINT = 'if';

/**
 * A rubric verdict. `reason` comes before `satisfied` because constrained decoding writes fields
 * in schema order: the judge says why before it commits.
 */
export const rubricVerdictSchema = defineJudgeSchema(
  'rubric_verdict',
  z.strictObject({ reason: z.string(), satisfied: z.boolean() }),
);

export type RubricVerdict = z.output<typeof rubricVerdictSchema.zod>;

/** An assistant turn as the user saw it: reasoning before `</think>` (or never closed) dropped. */
function visible(turn: ChatMessage): string {
  if (turn.role !== 'assistant') return turn.content;
  const close = turn.content.lastIndexOf('</think>');
  if (close >= 0) return turn.content.slice(close + '</think>'.length).trim();
  return turn.content.includes('<think>') ? '' : turn.content;
}

/**
 * The prompt for one rubric. The conversation, response and rubric sit in tags so that text in
 * them cannot pose as instructions; earlier turns are shown because a rubric may refer to them
 * ("given the allergy stated in turn 1").
 */
export function rubricPrompt(conversation: readonly ChatMessage[], response: string, question: string): ChatMessage[] {
  const transcript = conversation.map((turn, i) => `[turn ${i + 1}: ${turn.role}]\n${visible(turn)}`).join('\n\n');
  const content = `You check whether an assistant's final response satisfies one requirement.

<conversation>
${transcript}
</conversation>

<response>
${response}
</response>

<rubric>
${question}
</rubric>

Decide whether the final response satisfies the rubric, reading it in the light of the whole conversation: requirements, preferences and system instructions stated earlier still hold unless the user revised them. Judge this rubric only, not other qualities of the response. Reply in JSON with "reason" (one or two sentences) and "satisfied" (true or false).`;
  return [{ role: 'user', content }];
}

/** Asks the judge whether `response` (the final text, after `</think>`) satisfies `question`. */
export function judgeRubric(
  judge: JudgePort,
  input: { conversation: readonly ChatMessage[]; response: string; question: string },
  options: { signal?: AbortSignal } = {},
): Promise<JudgeResult<RubricVerdict>> {
  return judge.judge({ messages: rubricPrompt(input.conversation, input.response, input.question), schema: rubricVerdictSchema }, options);
}

export type RubricsJudgement =
  | { kind: 'pass'; verdicts: RubricVerdict[] }
  /** Rubric `index` is not satisfied; later rubrics were not asked. */
  | { kind: 'fail'; index: number; verdict: RubricVerdict; verdicts: RubricVerdict[] }
  /** The judge gave up on rubric `index`: the sample is ABORTED, never scored. */
  | { kind: 'aborted'; index: number; failure: JudgeFailure };

/**
 * Judges rubrics in order and stops at the first one not satisfied: under an all-pass reward the
 * rest cannot change it, so they cost no judge calls. In order rather than all at once, so the
 * same replies always lead to the same stopping point.
 */
export async function judgeRubrics(
  judge: JudgePort,
  input: { conversation: readonly ChatMessage[]; response: string; questions: readonly string[] },
  options: { signal?: AbortSignal } = {},
): Promise<RubricsJudgement> {
  const verdicts: RubricVerdict[] = [];
  for (const [index, question] of input.questions.entries()) {
    const result = await judgeRubric(judge, { conversation: input.conversation, response: input.response, question }, options);
    if (!result.ok) return { kind: 'aborted', index, failure: result };
    verdicts.push(result.value);
    if (!result.value.satisfied) return { kind: 'fail', index, verdict: result.value, verdicts };
  }
  return { kind: 'pass', verdicts };
}

/**
 * The seam for `judge` rubrics: asked last, only when every constraint and code rubric passed,
 * in order, stopping at the first one not satisfied (`judgeRubrics` above).
 */
export type JudgeOutcome =
  | { kind: 'done'; verdicts: Array<{ pass: boolean; reason: string }> }
  | { kind: 'unavailable'; endpoint: string }
  | { kind: 'aborted'; failure: JudgeFailure };

export async function runJudgeRubrics(
  questions: readonly string[],
  conversation: readonly ChatMessage[],
  text: string,
  env: VerifierEnv,
): Promise<JudgeOutcome> {
  const judge = env.services.judges?.get(IF_JUDGE_ENDPOINT);
  if (!judge) return { kind: 'unavailable', endpoint: IF_JUDGE_ENDPOINT };
  const result = await judgeRubrics(judge, { conversation, response: text, questions }, { signal: env.signal });
  if (result.kind === 'aborted') return { kind: 'aborted', failure: result.failure };
  return { kind: 'done', verdicts: result.verdicts.map((v) => ({ pass: v.satisfied, reason: v.satisfied ? '' : v.reason })) };
}
