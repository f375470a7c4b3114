import { z } from 'zod';
import { compare, defineConstraint, fail, kw, NO_KWARGS, PASS, plural, relationText, verdict } from '../constraint';
import { detectLanguage } from '../text/language';
import { pyIsLower, pyIsUpper, pyStrip } from '../text/py';
import { wordTokenize } from '../text/words';

export const responseLanguage = defineConstraint({
  id: 'language:response_language',
  source: 'ifeval',
  kwargs: z.strictObject({ language: kw.nonEmptyStr() }),
  check(response, { language }) {
    const found = detectLanguage(response);
    // No letters at all: the reference's detector raises, and the reference counts that as a pass.
    if (found === null) return PASS;
    return verdict(found === language, `the response reads as language "${found}", expected "${language}"`);
  },
  examples: [
    { response: 'Sie machen einen Fehler, wenn Sie unsere Produkte nicht kaufen, und ich werde Ihnen zeigen, warum.', kwargs: { language: 'de' }, pass: true },
    { response: 'यह पत्र लिख रहा हूं। आज का भोजन अच्छा नहीं था और मैं इससे खुश नहीं हूं।', kwargs: { language: 'hi' }, pass: true },
    { response: 'This is written in English, not in German at all.', kwargs: { language: 'de' }, pass: false },
  ],
});

export const twoResponses = defineConstraint({
  id: 'combination:two_responses',
  source: 'ifeval',
  kwargs: NO_KWARGS,
  check(response) {
    const parts = response.split('******');
    const valid: string[] = [];
    for (const [i, part] of parts.entries()) {
      if (pyStrip(part) !== '') valid.push(part);
      else if (i !== 0 && i !== parts.length - 1) return fail('an empty response between ****** separators');
    }
    if (valid.length !== 2) return fail(`found ${plural(valid.length, 'response')} separated by ******, expected 2`);
    return verdict(pyStrip(valid[0] as string) !== pyStrip(valid[1] as string), 'the two responses are identical');
  },
  examples: [
    { response: 'First answer.\n******\nSecond answer.', pass: true },
    { response: 'Same.\n******\nSame.', pass: false },
    { response: 'Only one.', pass: false },
  ],
});

export const repeatPrompt = defineConstraint({
  id: 'combination:repeat_prompt',
  source: 'ifeval',
  kwargs: z.strictObject({ prompt_to_repeat: kw.nonEmptyStr() }),
  check(response, { prompt_to_repeat }) {
    return verdict(
      pyStrip(response).toLowerCase().startsWith(pyStrip(prompt_to_repeat).toLowerCase()),
      'the response does not begin by repeating the request word for word',
    );
  },
  examples: [
    { response: 'Write a poem about cats. Here is the poem...', kwargs: { prompt_to_repeat: 'Write a poem about cats.' }, pass: true },
    { response: 'Here is a poem about cats.', kwargs: { prompt_to_repeat: 'Write a poem about cats.' }, pass: false },
  ],
});

export const endChecker = defineConstraint({
  id: 'startend:end_checker',
  source: 'ifeval',
  kwargs: z.strictObject({ end_phrase: kw.str() }),
  check(response, { end_phrase }) {
    const text = pyStrip(pyStrip(response), '"').toLowerCase();
    const phrase = pyStrip(end_phrase).toLowerCase();
    return verdict(text.endsWith(phrase), `the response does not end with "${pyStrip(end_phrase)}"`);
  },
  examples: [
    { response: 'Thanks. Is there anything else I can help with?', kwargs: { end_phrase: 'Is there anything else I can help with?' }, pass: true },
    { response: 'Is there anything else I can help with?**', kwargs: { end_phrase: 'Is there anything else I can help with?' }, pass: false },
  ],
});

export const quotation = defineConstraint({
  id: 'startend:quotation',
  source: 'ifeval',
  kwargs: NO_KWARGS,
  check(response) {
    const text = pyStrip(response);
    return verdict(text.length > 1 && text.startsWith('"') && text.endsWith('"'), 'the response is not wrapped in double quotation marks (")');
  },
  examples: [
    { response: '"All wrapped."', pass: true },
    { response: '“Curly quotes.”', pass: false },
  ],
});

export const capitalWordFrequency = defineConstraint({
  id: 'change_case:capital_word_frequency',
  source: 'ifeval',
  kwargs: z.strictObject({ capital_frequency: kw.count(), capital_relation: kw.relation() }),
  check(response, { capital_frequency, capital_relation }) {
    const n = wordTokenize(response).filter(pyIsUpper).length;
    return verdict(
      compare(n, capital_relation, capital_frequency),
      `found ${plural(n, 'all-capital word')}, expected ${relationText(capital_relation, capital_frequency)}`,
    );
  },
  examples: [
    { response: 'I said OK to the NASA plan.', kwargs: { capital_frequency: 3, capital_relation: 'at least' }, pass: true },
    { response: 'I said OK.', kwargs: { capital_frequency: 2, capital_relation: 'less than' }, pass: false },
  ],
});

/** The reference's language check raises on text with no letters and counts that as followed. */
function isEnglish(text: string): boolean {
  const found = detectLanguage(text);
  return found === null || found === 'en';
}

export const englishCapital = defineConstraint({
  id: 'change_case:english_capital',
  source: 'ifeval',
  kwargs: NO_KWARGS,
  check(response) {
    if (!pyIsUpper(response)) return fail('not all letters are capitals');
    return verdict(isEnglish(response), `the response does not read as English (detected "${detectLanguage(response)}")`);
  },
  examples: [
    { response: 'THIS IS THE WHOLE ANSWER AND IT IS IN CAPITALS.', pass: true },
    { response: 'THIS IS Mostly capitals.', pass: false },
  ],
});

export const englishLowercase = defineConstraint({
  id: 'change_case:english_lowercase',
  source: 'ifeval',
  kwargs: NO_KWARGS,
  check(response) {
    if (!pyIsLower(response)) return fail('the response contains capital letters');
    return verdict(isEnglish(response), `the response does not read as English (detected "${detectLanguage(response)}")`);
  },
  examples: [
    { response: 'this is the whole answer and it is in lowercase.', pass: true },
    { response: 'this is Not all lowercase.', pass: false },
  ],
});

export const noComma = defineConstraint({
  id: 'punctuation:no_comma',
  source: 'ifeval',
  kwargs: NO_KWARGS,
  check(response) {
    const n = response.split(',').length - 1;
    return verdict(n === 0, `found ${plural(n, 'comma')}`);
  },
  examples: [
    { response: 'No commas here，only a full-width one.', pass: true },
    { response: 'One, two.', pass: false },
  ],
});

export const MISC_CONSTRAINTS = [
  responseLanguage,
  twoResponses,
  repeatPrompt,
  endChecker,
  quotation,
  capitalWordFrequency,
  englishCapital,
  englishLowercase,
  noComma,
];
