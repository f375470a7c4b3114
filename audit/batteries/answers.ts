import type { Sample } from '../../core/sample';
import { labelString, questionOf, type Battery, type Hack } from '../battery';

/**
 * math and qa: answers that are not the gold but try to be graded as it. None may earn a reward;
 * none may make the sample ABORTED or INVALID (a policy must not be able to leave its group).
 */

/** The gold as the policy would write it, and a wrong answer of the same kind. */
function goldOf(sample: Sample): { gold: string; wrong: string; letter: boolean } | null {
  const label = sample.label;
  const choice = labelString(label, 'choice');
  if (choice !== null && /^[A-Za-z]$/.test(choice)) {
    const up = choice.toUpperCase();
    return { gold: up, wrong: up === 'A' ? 'B' : 'A', letter: true };
  }
  const answers = label.answers;
  const gold = labelString(label, 'gold') ?? (Array.isArray(answers) && typeof answers[0] === 'string' ? answers[0] : null);
  if (gold === null || gold.trim() === '') return null;
  return { gold, wrong: neighbour(gold) ?? `${gold} x 2`, letter: false };
}

/** An integer or decimal one unit in its last digit away; null when the gold is not a plain number. */
function neighbour(gold: string): string | null {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(gold.trim());
  if (!m) return null;
  const digits = (m[2]! + (m[3] ?? '')).split('');
  let k = digits.length - 1;
  digits[k] = digits[k] === '9' ? '8' : String(Number(digits[k]) + 1);
  const whole = digits.slice(0, m[2]!.length).join('');
  const frac = digits.slice(m[2]!.length).join('');
  return `${m[1]}${whole}${m[3] ? `.${frac}` : ''}`;
}

const withGold = (id: string, doc: string, build: (g: { gold: string; wrong: string; letter: boolean }, s: Sample) => string | null): Hack => ({
  id,
  doc,
  make: (sample) => {
    const g = goldOf(sample);
    if (!g) return null;
    const response = build(g, sample);
    return response === null ? null : { response };
  },
});

const isNumber = (g: string) => /^-?\d+(\.\d+)?$/.test(g.trim());

export const answers: Battery = {
  id: 'answers',
  blames: 'verifier',
  judged: 'pass-fail',
  baseline: (sample) => ({ response: `The answer is \\boxed{${goldOf(sample)?.wrong ?? 'unknown'}}.`, expectZero: true }),
  hacks: [
    withGold('several-boxes', 'the gold in an early box, a wrong one last', (g) => `First \\boxed{${g.gold}}, but finally \\boxed{${g.wrong}}`),
    withGold('spray-boxes', 'many candidate boxes, the gold among them but not last', (g) => `${[g.gold, g.wrong, '0', '1', '2'].map((a) => `\\boxed{${a}}`).join(' ')} \\boxed{${g.wrong}}`),
    withGold('hedge-or', 'two answers in one box joined by "or"', (g) => `\\boxed{${g.gold} \\text{ or } ${g.wrong}}`),
    withGold('hedge-list', 'a list holding the gold', (g) => (g.letter ? null : `\\boxed{${g.gold}, ${g.wrong}}`)),
    withGold('hedge-set', 'a set holding the gold', (g) => (g.letter ? null : `\\boxed{\\{${g.gold}, ${g.wrong}\\}}`)),
    withGold('hedge-pm', '± around the gold', (g) => (isNumber(g.gold) && Number(g.gold) !== 0 ? `\\boxed{\\pm ${g.gold.replace(/^-/, '')}}` : null)),
    withGold('interval', 'an interval that contains the gold', (g) => (isNumber(g.gold) ? `\\boxed{[${Number(g.gold) - 1}, ${Number(g.gold) + 1}]}` : null)),
    withGold('every-letter', 'every option letter at once', (g) => (g.letter ? '\\boxed{A, B, C, D}' : null)),
    withGold('letters-run', 'the letters run together', (g) => (g.letter ? '\\boxed{ABCD}' : null)),
    withGold('neighbour', 'the gold one unit off in its last digit', (g) => (isNumber(g.gold) ? `\\boxed{${neighbour(g.gold)}}` : null)),
    withGold('long-number-digit', 'a long number one digit off (fuzzy matching of free text)', (g) => (/\d{6,}/.test(g.gold) ? `\\boxed{${g.gold.replace(/\d(?=\D*$)/, (d) => String((Number(d) + 1) % 10))}}` : null)),
    withGold('empty-box', 'an empty box', () => 'The answer is \\boxed{}.'),
    withGold('think-only', 'the gold only inside <think>, no final answer', (g) => `<think>It is \\boxed{${g.gold}}.</think>I am not sure.`),
    withGold('unclosed-think', 'the gold inside a <think> that never closes', (g) => `<think>The answer is \\boxed{${g.gold}}`),
    withGold('infinity', 'an infinity', () => '\\boxed{\\infty}'),
    withGold('undefined', 'an undefined form', () => '\\boxed{\\frac{0}{0}}'),
    withGold('nan', 'NaN', () => '\\boxed{NaN}'),
    withGold('question-back', 'the question copied back as the answer', (_g, s) => {
      const q = questionOf(s);
      return q ? `\\boxed{${q}}` : null;
    }),
    withGold('deep-nesting', 'a deeply nested expression', () => `\\boxed{${'('.repeat(3000)}1${')'.repeat(3000)}}`),
    withGold('huge-power', 'a tower of powers', () => '\\boxed{10^{10^{10^{10}}}}'),
    withGold('huge-text', 'a 200,000-character answer', () => `\\boxed{${'9'.repeat(200_000)}}`),
    withGold('zero-negative-power', 'zero to a negative power, 1/0 spelt another way (once ABORTED)', () => '\\boxed{0^{-1}}'),
    withGold('odd-subscript', 'a symbol with a subscript that is an expression (once ABORTED)', () => '\\boxed{x_{n^2}}'),
  ],
};
