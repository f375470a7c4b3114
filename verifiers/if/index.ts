import { z } from 'zod';
import { inputMessage, textMessage, type InputMessage } from '../../core/chat';
import type { Json, JsonObject } from '../../core/json';
import { checkAgainst } from '../../core/label';
import { aborted, invalid, ok, type Outcome } from '../../core/sample';
import { finalText } from '../../core/text';
import { promptConversation } from '../../core/transcript';
import { defineAsync, type VerifierEnv } from '../../core/verifier';
import { judgeAborted, judgeMissing } from '../../core/ports/judge';
import { pyStrip } from '../../rubrics/text/py';
import { runCodeRubric } from './code';
import { checkConstraints, toVerdicts, type ConstraintsPayload } from './constraints';
import { runJudgeRubrics } from './judge';
import { ifLabel, presentKwargs, type CodeRubric, type IfLabel, type Rubric } from './label';

/** `metadata.messages` (or the chat-templated `metadata.prompt`): the conversation before the response, shown to judge rubrics. */
const inputMessages = z.array(inputMessage);

/** One rubric's line in `details.rubrics`. */
interface RubricReport extends JsonObject {
  index: number;
  kind: string;
  /** "pass", "fail", or "skipped" (a judge rubric not asked because an earlier rubric failed). */
  verdict: string;
}

function describe(rubric: Rubric, index: number): RubricReport {
  const report: RubricReport = { index, kind: rubric.kind, verdict: 'pending' };
  if (rubric.kind === 'constraint') report.id = rubric.id;
  if (rubric.kind === 'judge') report.question = rubric.question;
  return report;
}

function record(report: RubricReport, pass: boolean, reason: string): void {
  report.verdict = pass ? 'pass' : 'fail';
  if (!pass) report.reason = reason;
}

/**
 * Instruction following: reward 1 iff every rubric of the label passes on the final response (the
 * text after the last `</think>`, surrounding whitespace removed, which chat templates add).
 * Constraint rubrics (IFEval/IFBench checkers) run first, as one pure task on the worker pool;
 * then code rubrics (Python in the sandbox, JavaScript in an isolate); then judge rubrics, which
 * are only asked when everything before passed, since an all-pass reward is already 0 otherwise.
 */
export const ifVerifier = defineAsync({
  name: 'if',
  version: '1.1.1',
  audit: ['degenerate-texts', 'judge-injection'],
  // Only python, js and judge rubrics need a service: `score` checks each rubric's, naming it.
  requires: [],
  uses: ['sandbox', 'jsIsolate', 'judge'],
  example: {
    label: {
      rubrics: [
        { kind: 'constraint', id: 'length_constraints:number_words', kwargs: { relation: 'less than', num_words: 10 } },
        { kind: 'constraint', id: 'change_case:english_lowercase' },
      ],
    },
    response: 'all lower case, and short',
    reward: 1,
  },
  description:
    'Instruction following: all-pass reward over IFEval/IFBench constraint rubrics, Python and JavaScript rubric functions, and judge rubrics, on the text after </think>',
  label: ifLabel,
  tasks: { constraints: checkConstraints },
  async score({ response, label, sample }, env) {
    // Constraint rubrics read the response only: a string prompt is read back into messages only
    // when a rubric is shown the conversation (judge, python, js). Messages sent are always checked.
    const shown = label.rubrics.some((r) => r.kind !== 'constraint') || sample.metadata['messages'] !== undefined;
    const source = shown ? promptConversation(sample.metadata) : { ok: true as const, value: undefined, field: '' };
    if (!source.ok) return invalid(source.error);
    let messages: InputMessage[] = [];
    if (source.value !== undefined) {
      const checked = checkAgainst(inputMessages, source.value, source.field);
      if (!checked.ok) return invalid(checked.error);
      messages = checked.value;
    }
    const rubrics = label.rubrics as Rubric[];
    const reports = rubrics.map(describe);
    const details = (): JsonObject => ({ mode: label.mode, rubrics: reports });

    const final = finalText(response);
    if (final === null) return ok(0, 'unclosed_think', { mode: label.mode, unclosed_think: true });
    const text = pyStrip(final);

    const failed = await constraintsPhase(text, label, reports, env);
    const stop = await codePhase(text, rubrics, reports, messages as unknown as Json[], env);
    if (stop) return stop;

    const judged = reports.filter((r) => r.kind === 'judge');
    if (failed || reports.some((r) => r.verdict === 'fail')) {
      for (const r of judged) r.verdict = 'skipped';
      return ok(0, 'rubric_failed', details());
    }
    if (judged.length > 0) {
      const conversation = messages.map(textMessage);
      const questions = judged.map((r) => r.question as string);
      const outcome = await runJudgeRubrics(questions, conversation, text, env);
      if (outcome.kind === 'unavailable') return judgeMissing(outcome.endpoint);
      if (outcome.kind === 'aborted') return judgeAborted(outcome.failure, details());
      judged.forEach((r, i) => {
        const v = outcome.verdicts[i];
        if (v) record(r, v.pass, v.reason);
        else r.verdict = 'skipped';
      });
    }
    const allPass = reports.every((r) => r.verdict === 'pass');
    return ok(allPass ? 1 : 0, allPass ? 'all_rubrics_passed' : 'rubric_failed', details());
  },
});

/** Runs every constraint rubric on the pool; true when one failed. */
async function constraintsPhase(text: string, label: IfLabel, reports: RubricReport[], env: VerifierEnv): Promise<boolean> {
  const indices: number[] = [];
  const payload: ConstraintsPayload = { text, mode: label.mode, rubrics: [] };
  label.rubrics.forEach((rubric, i) => {
    if (rubric.kind !== 'constraint') return;
    indices.push(i);
    payload.rubrics.push({ id: rubric.id, kwargs: presentKwargs(rubric.kwargs) as JsonObject });
  });
  if (indices.length === 0) return false;
  const verdicts = toVerdicts(await env.compute('constraints', payload as unknown as Json), indices.length);
  let failed = false;
  verdicts.forEach((v, k) => {
    record(reports[indices[k] as number] as RubricReport, v.pass, v.reason);
    failed ||= !v.pass;
  });
  return failed;
}

/**
 * Runs the code rubrics concurrently, even after a failed constraint, so that a rubric that does not
 * compile is reported as the label error it is whatever the response. Returns the outcome that
 * ends scoring early (INVALID, ABORTED), or undefined.
 */
async function codePhase(
  text: string,
  rubrics: readonly Rubric[],
  reports: RubricReport[],
  messages: Json[],
  env: VerifierEnv,
): Promise<Outcome | undefined> {
  const code = rubrics.flatMap((r, i) => (r.kind === 'python' || r.kind === 'js' ? [{ rubric: r as CodeRubric, index: i }] : []));
  const outcomes = await Promise.all(code.map(({ rubric, index }) => runCodeRubric(rubric, index, { text, messages }, env)));
  for (const [k, outcome] of outcomes.entries()) {
    const index = (code[k] as { index: number }).index;
    if (outcome.kind === 'invalid') return invalid(outcome.reason);
    if (outcome.kind === 'aborted') {
      return aborted(outcome.reason, outcome.reason === 'service_unavailable' ? { service: outcome.error } : { rubric: index, error: outcome.error });
    }
    record(reports[index] as RubricReport, outcome.pass, outcome.reason);
  }
  return undefined;
}
