import { distance } from 'fastest-levenshtein';
import { z } from 'zod';
import { finalText } from '../../core/text';
import { ok } from '../../core/sample';
import { definePure } from '../../core/verifier';
import { extractAnswer } from './extract';
import { choiceLetter, normalizeAnswer } from './normalize';

/** Normalized Levenshtein similarity at or above which a free-text answer counts as a match. */
export const DEFAULT_THRESHOLD = 0.9;

export const qaLabel = z
  .strictObject({
    answers: z.array(z.string()).min(1).optional().describe('Accepted free-text answers'),
    choice: z
      .string()
      .regex(/^[A-Za-z]$/, 'expected a single option letter')
      .optional()
      .describe('The correct option letter of a multiple-choice question'),
    threshold: z.number().min(0).max(1).default(DEFAULT_THRESHOLD).describe('Fuzzy-match similarity threshold'),
  })
  .refine((label) => label.answers !== undefined || label.choice !== undefined, {
    message: 'one of label.answers or label.choice is required',
    path: ['answers'],
  });

/** 1 − edit distance / longer length: 1 for equal strings, 0 for nothing in common. */
export function similarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  return longest === 0 ? 1 : 1 - distance(a, b) / longest;
}

export const qa = definePure({
  name: 'qa',
  version: '1.2.0',
  description:
    'Science QA: the last \\boxed{} (or "Answer: …") after </think>, against an option letter or free-text answers by normalized then fuzzy match',
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

    const answer = normalizeAnswer(extracted.text);
    let best = { reference: '', similarity: -1 };
    for (const reference of label.answers ?? []) {
      const normalized = normalizeAnswer(reference);
      if (normalized === answer) {
        return ok(1, 'exact_match', { ...details, normalized: answer, reference, similarity: 1 });
      }
      const s = similarity(answer, normalized);
      if (s > best.similarity) best = { reference, similarity: s };
    }
    const matched = best.similarity >= label.threshold;
    return ok(matched ? 1 : 0, matched ? 'fuzzy_match' : 'wrong_answer', {
      ...details,
      normalized: answer,
      reference: best.reference,
      similarity: Math.round(best.similarity * 1e6) / 1e6,
    });
  },
});
