import { startsWithVerb } from './verbs';

describe('startsWithVerb (words:start_verb without a POS tagger)', () => {
  it('accepts base-form verbs from the list, whatever their case', () => {
    for (const w of ['Write', 'explain', 'LIST', 'Summarize', 'do']) expect([w, startsWithVerb(w)]).toEqual([w, true]);
  });

  it('accepts -ing and -ed forms of longer words', () => {
    for (const w of ['Running', 'jumped', 'Imagining', 'walked']) expect([w, startsWithVerb(w)]).toEqual([w, true]);
  });

  it('refuses the listed nouns, adjectives and prepositions that have those endings, whatever their case', () => {
    // Each of these has the -ing/-ed shape a verb form has: only the list keeps it out.
    for (const w of ['Something', 'anything', 'morning', 'Evening', 'Building', 'ceiling', 'spring', 'String', 'During', 'speed', 'Hundred', 'indeed', 'wedding']) {
      expect([w, startsWithVerb(w)]).toEqual([w, false]);
    }
  });

  it('refuses other words, short stems and non-letters', () => {
    for (const w of ['red', 'The', 'I', 'Dogs', 'ing', 'sing3ed', 'café', '', 'e', 'g']) expect([w, startsWithVerb(w)]).toEqual([w, false]);
  });
});
