import { z } from 'zod';
import { finalText } from '../../core/text';
import { textOrNumber } from '../../core/label';
import { ok } from '../../core/sample';
import { definePure } from '../../core/verifier';
import { extractAnswer } from './extract';
import { compareAnswer } from './match';
import { choiceLetter } from './normalize';
import { tokenize, tokensText } from './tokens';

/** Normalized Levenshtein similarity at or above which a free-text answer counts as a match. */
export const DEFAULT_THRESHOLD = 0.9;

export const qaLabel = z
  .strictObject({
    answers: z
      .array(textOrNumber(() => 'expected a string'))
      .min(1)
      .optional()
      .describe('Accepted free-text answers; a number is read as its text'),
    choice: z
      .string()
      .regex(/^[A-Za-z]$/, 'expected a single option letter')
      .optional()
      .describe('The correct option letter of a multiple-choice question'),
    threshold: z
      .number()
      .min(0)
      .max(1)
      .default(DEFAULT_THRESHOLD)
      .describe('Least similarity of each misspelt long word and of all letters together; numbers, symbols and short words always match exactly'),
  })
  .refine((label) => label.answers !== undefined || label.choice !== undefined, {
    message: 'one of label.answers or label.choice is required',
    path: ['answers'],
  });

export const qa = definePure({
  name: 'qa',
  version: '1.4.0',
  audit: ['answers'],
  example: { label: { choice: 'A' }, response: 'Option A fits the data. \\boxed{A}', reward: 1 },
  description:
    'Science QA: the last \\boxed{} (or "Answer: …") after </think>, against an option letter or free-text answers: numbers by value and symbols exactly, in order; long words may differ by a spelling slip',
  label: qaLabel,
  score({ response, label }) {
    const text = finalText(response);
    if (text === null) return ok(0, 'no_answer', { unclosed_think: true });
    const extracted = extractAnswer(text);
    if (!extracted) return ok(0, 'no_answer');
    const details = { extracted: extracted.text, rule: extracted.rule };

    if (label.choice !== undefined) {
      const letter = choiceLetter(extracted.text);
      const expected = label.choice.toUpperCase();
      if (letter !== null) {
        return ok(letter === expected ? 1 : 0, letter === expected ? 'correct_choice' : 'wrong_choice', {
          ...details,
          letter,
          reference: expected,
        });
      }
      if (!label.answers) return ok(0, 'no_choice', { ...details, reference: expected });
    }

    const answer = tokenize(extracted.text);
    const normalized = tokensText(answer);
    const round = (x: number) => Math.round(x * 1e6) / 1e6;
    let fuzzy: { reference: string; similarity: number } | null = null;
    let closest: { reference: string; similarity: number; mismatch: string } | null = null;
    for (const reference of label.answers ?? []) {
      const match = compareAnswer(answer, tokenize(reference), label.threshold);
      if (match.kind === 'exact') return ok(1, 'exact_match', { ...details, normalized, reference, similarity: 1 });
      if (match.kind === 'fuzzy') {
        if (!fuzzy || match.similarity > fuzzy.similarity) fuzzy = { reference, similarity: match.similarity };
      } else if (!closest || match.similarity > closest.similarity) {
        closest = { reference, similarity: match.similarity, mismatch: match.mismatch };
      }
    }
    if (fuzzy) return ok(1, 'fuzzy_match', { ...details, normalized, reference: fuzzy.reference, similarity: round(fuzzy.similarity) });
    return ok(0, 'wrong_answer', {
      ...details,
      normalized,
      reference: closest?.reference ?? '',
      similarity: round(closest?.similarity ?? 0),
      mismatch: closest?.mismatch ?? 'no reference',
    });
  },
});
