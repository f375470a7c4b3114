import { checkWith, passes } from '../../test/pure/constraint';
import { capitalWordFrequency, endChecker, englishCapital, englishLowercase, noComma, quotation, repeatPrompt, responseLanguage, twoResponses } from './misc';

describe('IFEval combination, start/end, case and punctuation constraints', () => {
  it('two_responses: exactly two non-blank responses between ****** that differ once stripped', () => {
    expect(passes(twoResponses, '******\nA cat.\n******\nA dog.\n******')).toBe(true);
    expect(checkWith(twoResponses, 'A cat.\n******\n \n******\nA dog.')).toEqual({ pass: false, reason: 'an empty response between ****** separators' });
    expect(checkWith(twoResponses, 'A ****** B ****** C').reason).toBe('found 3 responses separated by ******, expected 2');
    expect(checkWith(twoResponses, '  Same.\n******\nSame.  ')).toEqual({ pass: false, reason: 'the two responses are identical' });
    // Case is a difference.
    expect(passes(twoResponses, 'same.\n******\nSame.')).toBe(true);
  });

  it('repeat_prompt: the response begins with the request, case-insensitively, surrounding whitespace ignored', () => {
    const prompt_to_repeat = ' Write a poem about cats. ';
    expect(passes(repeatPrompt, '\n write a POEM about cats. Here it is.', { prompt_to_repeat })).toBe(true);
    expect(passes(repeatPrompt, 'Write a poem about cats', { prompt_to_repeat })).toBe(false);
    expect(passes(repeatPrompt, 'Sure! Write a poem about cats.', { prompt_to_repeat })).toBe(false);
  });

  it('end_checker: the phrase ends the response, quotes around the response and case aside', () => {
    const end_phrase = 'Any other questions?';
    expect(passes(endChecker, '"Here you go. any other QUESTIONS?"\n', { end_phrase })).toBe(true);
    expect(passes(endChecker, 'Any other questions? Bye.', { end_phrase })).toBe(false);
    expect(checkWith(endChecker, 'Nope.', { end_phrase: '  Any other questions?  ' }).reason).toBe('the response does not end with "Any other questions?"');
  });

  it('quotation: wrapped in straight double quotes, a lone quote mark is not', () => {
    expect(passes(quotation, '  "Quoted."\n')).toBe(true);
    expect(passes(quotation, '"')).toBe(false);
    expect(passes(quotation, '""')).toBe(true);
    expect(passes(quotation, '"Half quoted.')).toBe(false);
  });

  it('capital_word_frequency: counts all-capital tokens, "I" included', () => {
    expect(checkWith(capitalWordFrequency, 'I said OK to the NASA plan.', { capital_frequency: 3, capital_relation: 'less than' }).reason).toBe(
      'found 3 all-capital words, expected fewer than 3',
    );
    expect(passes(capitalWordFrequency, 'Mixed Case Words only.', { capital_frequency: 1, capital_relation: 'less than' })).toBe(true);
  });

  it('english_capital and english_lowercase: Python isupper/islower, so text needs a cased letter', () => {
    expect(passes(englishCapital, 'ALL CAPITALS, 2 TIMES OVER.')).toBe(true);
    expect(checkWith(englishCapital, 'ALL CAPITALS but one.')).toEqual({ pass: false, reason: 'not all letters are capitals' });
    expect(passes(englishLowercase, 'all lower case, 2 times over.')).toBe(true);
    expect(passes(englishLowercase, 'Not lower.')).toBe(false);
    // '123'.islower() and .isupper() are both False in Python.
    expect(passes(englishLowercase, '123 456')).toBe(false);
    expect(passes(englishCapital, '123 456')).toBe(false);
  });

  it('response_language: passes a response with no letters, as the reference (its detector raises)', () => {
    expect(passes(responseLanguage, '12345 !!! 678', { language: 'de' })).toBe(true);
    expect(checkWith(responseLanguage, 'This is plainly written in English, not in German at all.', { language: 'de' }).reason).toBe(
      'the response reads as language "en", expected "de"',
    );
  });

  it('no_comma: any ASCII comma fails, counted; other commas do not', () => {
    expect(checkWith(noComma, 'a, b, c')).toEqual({ pass: false, reason: 'found 2 commas' });
    expect(passes(noComma, 'a，b、c')).toBe(true);
  });
});
