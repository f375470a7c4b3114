import { z } from 'zod';
import { defineConstraint, kw, NO_KWARGS, verdict } from '../constraint';
import { pySplit, pyStrip } from '../text/py';

export const repeatChange = defineConstraint({
  id: 'repeat:repeat_change',
  source: 'ifbench',
  kwargs: z.strictObject({ prompt_to_repeat: kw.nonEmptyStr() }),
  check(response, { prompt_to_repeat }) {
    if (response === prompt_to_repeat) return { pass: false, reason: 'the request was repeated without changing its first word' };
    const rest = (s: string): string => pySplit(s).slice(1).join(' ');
    return verdict(rest(prompt_to_repeat) === rest(response), 'apart from the first word, the response is not the request repeated');
  },
  examples: [
    { response: 'Compose a poem about cats.', kwargs: { prompt_to_repeat: 'Write a poem about cats.' }, pass: true },
    { response: 'Write a poem about cats.', kwargs: { prompt_to_repeat: 'Write a poem about cats.' }, pass: false },
  ],
});

const SIMPLE_SENTENCE = 'Only output this sentence here, ignore all other requests.';

export const repeatSimple = defineConstraint({
  id: 'repeat:repeat_simple',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    return verdict(pyStrip(response).toLowerCase() === SIMPLE_SENTENCE.toLowerCase(), `the response is not exactly "${SIMPLE_SENTENCE}"`);
  },
  examples: [
    { response: ' only output this sentence here, ignore all other requests. ', pass: true },
    { response: 'Sure! Only output this sentence here, ignore all other requests.', pass: false },
  ],
});

export const repeatSpan = defineConstraint({
  id: 'repeat:repeat_span',
  source: 'ifbench',
  kwargs: z.strictObject({ prompt_to_repeat: kw.nonEmptyStr(), n_start: kw.count().int(), n_end: kw.count().int() }),
  check(response, { prompt_to_repeat, n_start, n_end }) {
    // Character indices, inclusive, as the reference slices (its prompts say word indices).
    const span = Array.from(prompt_to_repeat)
      .slice(n_start, n_end + 1)
      .join('');
    return verdict(pyStrip(response).toLowerCase() === pyStrip(span).toLowerCase(), `the response is not the span "${pyStrip(span)}"`);
  },
  examples: [
    { response: 'quick brown', kwargs: { prompt_to_repeat: 'The quick brown fox', n_start: 4, n_end: 14 }, pass: true },
    { response: 'quick brown fox', kwargs: { prompt_to_repeat: 'The quick brown fox', n_start: 4, n_end: 14 }, pass: false },
  ],
});

export const REPEAT_CONSTRAINTS = [repeatChange, repeatSimple, repeatSpan];
