import type { VerifierEnv } from '../../core/verifier';
import { type FailureKind, IF_JUDGE_ENDPOINT, judgeRubrics, type Turn } from '../../services/judge';

/**
 * The seam for `judge` rubrics: asked last, only when every constraint and code rubric passed,
 * in order, stopping at the first one not satisfied (services/judge `judgeRubrics`).
 */
export type JudgeOutcome =
  | { kind: 'done'; verdicts: Array<{ pass: boolean; reason: string }> }
  | { kind: 'unavailable'; endpoint: string }
  | { kind: 'aborted'; failure: { kind: FailureKind; message: string; attempts: number } };

export async function runJudgeRubrics(
  questions: readonly string[],
  conversation: readonly Turn[],
  text: string,
  env: VerifierEnv,
): Promise<JudgeOutcome> {
  const judge = env.services.judges?.get(IF_JUDGE_ENDPOINT);
  if (!judge) return { kind: 'unavailable', endpoint: IF_JUDGE_ENDPOINT };
  const result = await judgeRubrics(judge, { conversation, response: text, questions }, { signal: env.signal });
  if (result.kind === 'aborted') return { kind: 'aborted', failure: result.failure };
  return { kind: 'done', verdicts: result.verdicts.map((v) => ({ pass: v.satisfied, reason: v.satisfied ? '' : v.reason })) };
}
