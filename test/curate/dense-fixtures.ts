import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Dense-retrieval fixtures: a small AIME-like benchmark and training rows in the chat layout
 * (`messages`) that hold one problem verbatim, one reformatted (clauses re-ordered, words and
 * markup changed, so no 8-word phrase survives), and unrelated problems.
 */

export const BENCH = [
  { id: 'aime-1', problem: 'Find the number of ordered pairs of positive integers (m, n) such that m squared times n equals 20 raised to the power 20.', answer: '231' },
  { id: 'aime-2', problem: 'Let x, y and z be positive real numbers satisfying the system of logarithmic equations log base 2 of x over yz equals one half, log base 2 of y over xz equals one third, and log base 2 of z over xy equals one quarter. Find the absolute value of log base 2 of x to the fourth times y cubed times z squared.', answer: '33' },
  { id: 'aime-3', problem: 'A list of positive integers has a sum of 30, its unique mode is 9, and its median is a positive integer that does not itself appear in the list. Find the sum of the squares of all the items in the list.', answer: '236' },
  { id: 'aime-4', problem: 'Every morning Aya walks nine kilometres and stops at a coffee shop afterwards; walking at s kilometres per hour the walk takes four hours including t minutes in the shop. Find the number of minutes the walk takes at s plus one half kilometres per hour.', answer: '204' },
];

const chat = (user: string, assistant: string) => ({ messages: [{ role: 'user', content: user }, { role: 'assistant', content: assistant }] });

export const TRAIN = [
  { id: 'verbatim', ...chat(BENCH[0]!.problem, 'The answer is 231.') },
  {
    id: 'reformatted',
    ...chat(
      'Positive reals x, y, z satisfy three equations: log_2(x/(yz)) = 1/2; log_2(y/(xz)) = 1/3; log_2(z/(xy)) = 1/4. Compute |log_2(x^4 y^3 z^2)| (absolute value), given the logarithmic system above in base 2 for x, y and z.',
      'Adding the equations gives the answer 33.',
    ),
  },
  { id: 'unrelated-1', ...chat('Write a Python function that returns the longest palindromic substring of a string, in quadratic time.', 'def longest(s): ...') },
  { id: 'unrelated-2', ...chat('Which organelle makes ATP in eukaryotic cells, and what membrane folds increase its surface?', 'Mitochondria; the cristae.') },
  { id: 'unrelated-3', ...chat('Translate into French: the cat sleeps on the warm windowsill every afternoon.', 'Le chat dort sur le rebord chaud de la fenêtre chaque après-midi.') },
  { id: 'empty', messages: [] },
];

export function writeFixtures(dir: string): { train: string; bench: string } {
  const train = join(dir, 'train.jsonl');
  const bench = join(dir, 'aime.jsonl');
  writeFileSync(train, TRAIN.map((r) => JSON.stringify(r)).join('\n') + '\n');
  writeFileSync(bench, BENCH.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return { train, bench };
}
