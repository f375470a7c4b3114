import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { JsonObject } from '../../core/json';
import { scorePure } from '../../core/score';
import type { Sample } from '../../core/sample';
import { lastBoxed } from '../../core/text';
import { constraintById } from '../../rubrics/registry';
import { replyText } from '../../services/judge/reply';
import { lastPythonBlock } from '../../verifiers/code/extract';
import { createRegistry } from '../../verifiers';
import { trimAnswer } from '../../verifiers/math/parse';
import { stripLatex } from '../../verifiers/qa/normalize';

/*
 * Texts that made a pattern backtrack over a long run (spaces, newlines, `<`, full stops, boxes):
 * each took from seconds to hours before it was made linear, and a response or a judge's reply can
 * be megabytes. Run by hostile-text.test.ts on a worker thread it can stop; each case answers what
 * it found, which the test compares too.
 */

const N = 1_000_000;
const spaces = ' '.repeat(N);
const newlines = '\n'.repeat(N);

const registry = createRegistry();

function score(verifier: string, response: string, label: JsonObject): [string, number | undefined, string] {
  const v = registry.get(verifier);
  if (v?.kind !== 'pure') throw new Error(`${verifier} is not a pure verifier`);
  const sample: Sample = { id: 's', verifier, response, label, groupId: '', responseTokens: 0, metadata: {} };
  const outcome = scorePure(v, sample);
  return [outcome.status, outcome.status === 'OK' ? outcome.reward : undefined, outcome.reason];
}

function check(id: string, response: string, kwargs: JsonObject = {}): boolean {
  const constraint = constraintById(id)!;
  return constraint.check(response, constraint.kwargs.parse(kwargs)).pass;
}

/** Each case: what to run, and what it must answer. */
export const HOSTILE_CASES: Record<string, { run: () => unknown; answer: unknown }> = {
  'math: spaces between two math spans': { run: () => score('math', `$x$${spaces}y $2$`, { gold: '2' }), answer: ['OK', 1, 'correct'] },
  'math: newlines between two math spans': { run: () => score('math', `So $x$${newlines}y $2$`, { gold: '2' }), answer: ['OK', 1, 'correct'] },
  'math: "final answer is" then newlines': { run: () => score('math', `The final answer is${newlines}x`, { gold: '2' })[0], answer: 'OK' },
  'math: a number whose fraction bar follows a run of spaces': { run: () => score('math', `so it is 1${spaces}/2`, { gold: '7' })[0], answer: 'OK' },
  'math: a run of full stops inside an answer': { run: () => trimAnswer(`5${'.'.repeat(N)}x`).length, answer: N + 2 },
  'qa: "answer" then spaces': { run: () => score('qa', `answer${spaces}x`, { answers: ['x'] }), answer: ['OK', 0, 'no_answer'] },
  'qa: "the answer is" then newlines': { run: () => score('qa', `the answer is${newlines}`, { answers: ['x'] }), answer: ['OK', 0, 'no_answer'] },
  'qa: colour commands that never close': {
    run: () =>
      [`\\color${spaces}x`, `{\\color{red}${spaces}`, `\\textcolor${spaces}{red}${spaces}x`, `\\fcolorbox{a}${spaces}[b]${spaces}`].map(
        (a) => stripLatex(a).trim().length,
      ),
    answer: [N + 7, 1, 10 + N + 5 + N + 1, 13 + N + 3],
  },
  'qa: a letter then spaces': { run: () => score('qa', `Answer: A${spaces}xy`, { choice: 'A' }), answer: ['OK', 0, 'no_choice'] },
  'qa: a number of a million zeros (its value is read from both ends)': {
    run: () => score('qa', `\\boxed{${'0'.repeat(N)}1${'0'.repeat(N)}}`, { answers: ['1'] }),
    answer: ['OK', 0, 'wrong_answer'],
  },
  'qa: thousands groups, superscripts and signs in long runs': {
    run: () => score('qa', `Answer: 1${',000'.repeat(N / 4)} ${'⁻'.repeat(N)} ${'-+'.repeat(N / 2)}`, { answers: ['1 000'] }),
    answer: ['OK', 0, 'wrong_answer'],
  },
  'qa: a long answer of words against a short gold': { run: () => score('qa', `Answer: ${'word '.repeat(N / 5)}`, { answers: ['word'] }), answer: ['OK', 0, 'wrong_answer'] },
  'qa: "\\color[" over and over': { run: () => stripLatex('\\color['.repeat(N / 8)).length, answer: N - N / 8 },
  'if: a postscript search over spaces': { run: () => check('detectable_content:postscript', `${spaces}x`, { postscript_marker: 'P.S.' }), answer: false },
  'if: bullets after a run of blank lines': { run: () => check('detectable_format:number_bullet_lists', `${newlines}x`, { num_bullets: 0 }), answer: true },
  'if: JSON of one unclosed string of escaped quotes': { run: () => check('detectable_format:json_format', `"${'\\"'.repeat(N / 2)}`), answer: false },
  'if: a CSV field left open on a run of special characters': {
    run: () => check('custom:csv_special_character', `${'a,b,c,d,e\n'.repeat(14)}a,b,c,d,"${'!'.repeat(N)}`),
    answer: false,
  },
  'if: a title of "<"': { run: () => check('detectable_format:title', '<'.repeat(N)), answer: false },
  'if: multiple-choice questions split over newlines': { run: () => check('custom:mcq_count_length', `Question 1${newlines}x`), answer: false },
  'boxes nested deep': { run: () => lastBoxed(`${'\\boxed{'.repeat(N / 8)}x${'}'.repeat(N / 8)}`), answer: 'x' },
  'boxes that never close': { run: () => lastBoxed(`${'\\boxed{'.repeat(N / 8)}x`), answer: null },
  'code: a fence line of spaces with a backtick after': { run: () => lastPythonBlock(`\`\`\`${spaces}x\`\`\`y\nprint(1)\n\`\`\``), answer: null },
  'judge: a ```json fence then newlines': { run: () => replyText(`\`\`\`json${newlines}x`).length, answer: 8 + N },
};

if (!isMainThread && typeof workerData?.hostileCase === 'string') {
  parentPort!.postMessage(HOSTILE_CASES[workerData.hostileCase as string]!.run());
}
