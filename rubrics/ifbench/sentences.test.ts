import { checkWith, passes } from '../../test/pure/constraint';
import {
  alliterationIncrement,
  emojiSentences,
  incrementWords,
  keywordSentence,
  lastFirst,
  overlap,
  sentenceBalance,
  sentenceType,
  sentenceWords,
  stopWords,
} from './sentences';

describe('IFBench sentence constraints', () => {
  it('sentence:keyword looks in sentence N as Python indexes it: N = 0 is the last one', () => {
    const kw = (word: string, N: number) => ({ word, N });
    const text = 'First one here. The giraffe is tall. Last of all.';
    expect(passes(keywordSentence, text, kw('giraffe', 2))).toBe(true);
    expect(passes(keywordSentence, text, kw('GIRAFFE', 2))).toBe(true);
    expect(checkWith(keywordSentence, text, kw('giraffe', 3))).toEqual({ pass: false, reason: 'sentence 3 does not contain "giraffe"' });
    expect(passes(keywordSentence, text, kw('all', 0))).toBe(true);
    expect(checkWith(keywordSentence, text, kw('all', 4)).reason).toBe('found 3 sentences, so there is no sentence 4');
    // A whole word: not inside another, and a pattern character in the word is literal.
    expect(passes(keywordSentence, 'Giraffes run.', kw('giraffe', 1))).toBe(false);
    expect(passes(keywordSentence, 'We use a.b here.', kw('a.b', 1))).toBe(true);
    expect(passes(keywordSentence, 'We use axb here.', kw('a.b', 1))).toBe(false);
  });

  it('ratio:sentence_type wants twice as many statements as questions; sentence_balance equal numbers of all three', () => {
    expect(passes(sentenceType, 'I went out. It rained. Why?')).toBe(true);
    expect(checkWith(sentenceType, 'I went out. Why? How?').reason).toBe('found 1 declarative sentence and 2 questions, expected a 2:1 ratio');
    expect(passes(sentenceBalance, 'It rained. Why? Wow! It stopped. When? Great!')).toBe(true);
    expect(checkWith(sentenceBalance, 'It rained. Why?').reason).toBe('found 1 declarative, 1 interrogative and 0 exclamatory sentences, expected equal numbers');
  });

  it('ratio:sentence_words wants three sentences of equal character length', () => {
    expect(passes(sentenceWords, 'Cats nap. Dogs run. Owls fly.')).toBe(true);
    expect(checkWith(sentenceWords, 'Cats nap. Dogs run.').reason).toBe('found 2 sentences, expected 3');
    expect(checkWith(sentenceWords, 'Cats nap. Dogs ran off. Owls fly.').reason).toBe('the sentences have 9, 13, 9 characters, expected the same number');
  });

  it('ratio:stop_words bounds the share of stop words; a response with no words fails', () => {
    expect(passes(stopWords, 'Quantum chromodynamics describes strong interactions.', { percentage: 0 })).toBe(true);
    expect(checkWith(stopWords, '!!!', { percentage: 50 })).toEqual({ pass: false, reason: 'the response has no words' });
    expect(passes(stopWords, 'It is what it is.', { percentage: 50 })).toBe(false);
  });

  it('ratio:overlap wants the character-trigram overlap within 2 points of the percentage', () => {
    // All 4 trigrams of "abcdef" are in the reference: 100%.
    expect(passes(overlap, 'abcdef', { reference_text: 'abcdef', percentage: 98 })).toBe(true);
    expect(passes(overlap, 'abcdef', { reference_text: 'abcdef', percentage: 97 })).toBe(false);
    // abc, bcd of abcdef's four: 50%.
    expect(checkWith(overlap, 'abcdef', { reference_text: 'abcd', percentage: 60 }).reason).toBe(
      'character-trigram overlap with the reference is 50.0%, expected 60% ± 2%',
    );
    expect(checkWith(overlap, 'ab', { reference_text: 'abc', percentage: 0 }).reason).toBe('the response is shorter than three characters');
  });

  it('format:emoji wants every sentence to end with an emoji (or the next to start with the one Punkt moved)', () => {
    expect(passes(emojiSentences, 'I love rockets 🚀. They fly high 🌙.')).toBe(true);
    expect(checkWith(emojiSentences, 'I love rockets. They fly high 🌙.').reason).toBe('sentence 1 does not end with an emoji');
    expect(checkWith(emojiSentences, 'I love rockets 🚀. They fly high.').reason).toBe('sentence 2 does not end with an emoji');
    // The second-to-last character may be the emoji.
    expect(passes(emojiSentences, 'Rockets 🚀x')).toBe(true);
  });

  it('sentence:increment wants each sentence small_n words longer than the one before', () => {
    expect(passes(incrementWords, 'One. One two. One two three.', { small_n: 1 })).toBe(true);
    expect(passes(incrementWords, 'One. One two three. Five words are here now.', { small_n: 2 })).toBe(true);
    expect(checkWith(incrementWords, 'One two. One.', { small_n: 1 }).reason).toBe('sentence 2 has 1 word, expected 3');
  });

  it('sentence:alliteration_increment wants more alliterative words in each sentence than the last', () => {
    expect(passes(alliterationIncrement, 'A cat sat. Big bold bears. Silly snakes slither slowly.')).toBe(true);
    expect(checkWith(alliterationIncrement, 'Big bold bears. A cat sat.').reason).toBe('sentence 2 has 0 alliterative words, no more than the sentence before (3)');
  });

  it('words:last_first wants each sentence to start with the word the one before ended with', () => {
    expect(passes(lastFirst, 'I like the sea. Sea air is fresh. Fresh is good.')).toBe(true);
    expect(checkWith(lastFirst, 'I like the sea. Air is fresh.').reason).toBe('sentence 1 ends with "sea" but sentence 2 starts with "Air"');
    expect(passes(lastFirst, 'One sentence only.')).toBe(true);
  });
});
