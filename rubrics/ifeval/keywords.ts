import { z } from 'zod';
import { compare, defineConstraint, fail, kw, PASS, plural, relationText, verdict } from '../constraint';
import { labelPattern, type LabelPattern, type PatternOptions } from '../text/label-pattern';
import { wordRuns } from '../text/words';

const PLAIN_WORD = /^[\p{L}\p{N}_]+$/u;

/**
 * The IFEval keyword checkers use the keyword itself as a (case-insensitive) regular expression; a
 * label's pattern runs under `labelPattern`'s linear-time rules.
 */
const pattern = (options: PatternOptions = { ignoreCase: true }) =>
  kw.str().superRefine((s, ctx) => {
    const compiled = labelPattern(s, options);
    if (typeof compiled === 'string') ctx.addIssue({ code: 'custom', message: compiled });
  });

const BOUNDED: PatternOptions = { ignoreCase: true, before: '\\b', after: '\\b' };

/** A pattern the kwargs schema has already accepted. */
function compiledPattern(source: string, options: PatternOptions = { ignoreCase: true }): LabelPattern {
  const compiled = labelPattern(source, options);
  if (typeof compiled === 'string') throw new Error(`unchecked label pattern: ${compiled}`);
  return compiled;
}

export const existence = defineConstraint({
  id: 'keywords:existence',
  source: 'ifeval',
  kwargs: z.strictObject({ keywords: kw.list(pattern()) }),
  check(response, { keywords }) {
    // Substring search, as the reference: "cat" is found in "concatenate".
    const missing = [...keywords].sort().filter((k) => !compiledPattern(k).test(response));
    return verdict(missing.length === 0, `missing keyword${missing.length > 1 ? 's' : ''} ${missing.map((k) => `"${k}"`).join(', ')}`);
  },
  examples: [
    { response: 'An adoption in a carriage.', kwargs: { keywords: ['adoption', 'carriage'] }, pass: true },
    { response: 'Concatenate.', kwargs: { keywords: ['cat'] }, pass: true },
    { response: 'An adoption.', kwargs: { keywords: ['adoption', 'carriage'] }, pass: false },
  ],
});

export const frequency = defineConstraint({
  id: 'keywords:frequency',
  source: 'ifeval',
  kwargs: z.strictObject({ keyword: pattern().pipe(z.string().trim().min(1, 'required (non-empty)')), frequency: kw.count(), relation: kw.relation() }),
  check(response, { keyword, frequency, relation }) {
    const n = compiledPattern(keyword).count(response);
    return verdict(compare(n, relation, frequency), `"${keyword}" appears ${plural(n, 'time')}, expected ${relationText(relation, frequency)}`);
  },
  examples: [
    { response: 'Brand new brand, BRAND.', kwargs: { keyword: 'brand', frequency: 3, relation: 'at least' }, pass: true },
    { response: 'there then', kwargs: { keyword: 'the', frequency: 2, relation: 'less than' }, pass: false },
    { response: 'one brand', kwargs: { keyword: 'brand', frequency: 2, relation: 'at least' }, pass: false },
  ],
});

export const forbiddenWords = defineConstraint({
  id: 'keywords:forbidden_words',
  source: 'ifeval',
  kwargs: z.strictObject({ forbidden_words: kw.list(pattern(BOUNDED)) }),
  check(response, { forbidden_words }) {
    let runs: Set<string> | undefined;
    for (const word of [...new Set(forbidden_words)].sort()) {
      // A word of word characters only matches `\bword\b` exactly where a maximal run of word
      // characters equals it; anything else is run as the reference's regex.
      const found = PLAIN_WORD.test(word)
        ? (runs ??= new Set(wordRuns(response).map((r) => r.toLowerCase()))).has(word.toLowerCase())
        : compiledPattern(word, BOUNDED).test(response);
      if (found) return fail(`uses forbidden word "${word}"`);
    }
    return PASS;
  },
  examples: [
    { response: 'Many cats here.', kwargs: { forbidden_words: ['cat'] }, pass: true },
    { response: 'A Cat sat.', kwargs: { forbidden_words: ['cat', 'dog'] }, pass: false },
  ],
});

export const letterFrequency = defineConstraint({
  id: 'keywords:letter_frequency',
  source: 'ifeval',
  // A letter outside a-z is counted as given: current references swap it for a random letter.
  kwargs: z.strictObject({
    letter: kw.str().refine((s) => [...s].length === 1, 'expected a single character'),
    let_frequency: kw.count(),
    let_relation: kw.relation(),
  }),
  check(response, { letter, let_frequency, let_relation }) {
    const target = letter.trim().toLowerCase();
    let n = 0;
    for (const ch of response.toLowerCase()) if (ch === target) n++;
    return verdict(compare(n, let_relation, let_frequency), `letter "${target}" appears ${plural(n, 'time')}, expected ${relationText(let_relation, let_frequency)}`);
  },
  examples: [
    { response: 'Yay yearly', kwargs: { letter: 'y', let_frequency: 4, let_relation: 'at least' }, pass: true },
    { response: 'Yay yearly', kwargs: { letter: 'y', let_frequency: 4, let_relation: 'less than' }, pass: false },
    { response: 'Wow! Great!', kwargs: { letter: '!', let_frequency: 2, let_relation: 'at least' }, pass: true },
  ],
});

export const KEYWORD_CONSTRAINTS = [existence, frequency, forbiddenWords, letterFrequency];
