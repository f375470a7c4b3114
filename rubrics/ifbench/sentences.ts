import { z } from 'zod';
import { defineConstraint, fail, kw, NO_KWARGS, PASS, plural, verdict } from '../constraint';
import { isEmojiChar } from '../text/emoji';
import { firstChar, lastChar, secondToLastChar } from '../text/chars';
import { leadingSentences, sentences, sentTokenize } from '../text/punkt';
import { countWordsWithoutPunctuation, escapeRegExp, PUNCT_AND_SPACE, PY_B, pyLen, pyLstrip, pyRstrip, pySplit, pyStrip, removePunctuation } from '../text/py';
import { sharedCounts, trigrams } from '../text/trigrams';
import { countStopwords, countWords } from '../text/words';

export const stopWords = defineConstraint({
  id: 'ratio:stop_words',
  source: 'ifbench',
  kwargs: z.strictObject({ percentage: kw.count() }),
  check(response, { percentage }) {
    const words = countWords(response);
    if (words === 0) return fail('the response has no words');
    const share = (countStopwords(response) / words) * 100;
    return verdict(share <= percentage, `stop words are ${share.toFixed(1)}% of the words, expected at most ${percentage}%`);
  },
  examples: [
    { response: 'Quantum chromodynamics describes strong interactions.', kwargs: { percentage: 20 }, pass: true },
    { response: 'It is what it is and that is that.', kwargs: { percentage: 50 }, pass: false },
  ],
});

function sentenceTypes(response: string): { declarative: number; interrogative: number; exclamatory: number } {
  const sentences = sentTokenize(response);
  return {
    declarative: sentences.filter((s) => s.endsWith('.')).length,
    interrogative: sentences.filter((s) => s.endsWith('?')).length,
    exclamatory: sentences.filter((s) => s.endsWith('!')).length,
  };
}

export const sentenceType = defineConstraint({
  id: 'ratio:sentence_type',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const { declarative, interrogative } = sentenceTypes(response);
    return verdict(
      declarative === 2 * interrogative,
      `found ${plural(declarative, 'declarative sentence')} and ${plural(interrogative, 'question')}, expected a 2:1 ratio`,
    );
  },
  examples: [
    { response: 'I went out. It rained. Why?', pass: true },
    { response: 'I went out. Why? How?', pass: false },
  ],
});

export const sentenceBalance = defineConstraint({
  id: 'ratio:sentence_balance',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const { declarative, interrogative, exclamatory } = sentenceTypes(response);
    return verdict(
      declarative === interrogative && interrogative === exclamatory,
      `found ${declarative} declarative, ${interrogative} interrogative and ${exclamatory} exclamatory sentences, expected equal numbers`,
    );
  },
  examples: [
    { response: 'It rained. Why? Wow!', pass: true },
    { response: 'It rained. It poured. Wow!', pass: false },
  ],
});

export const sentenceWords = defineConstraint({
  id: 'ratio:sentence_words',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const sentences = sentTokenize(response);
    if (sentences.length !== 3) return fail(`found ${plural(sentences.length, 'sentence')}, expected 3`);
    const lengths = sentences.map((s) => pyLen(pyStrip(s)));
    return verdict(
      lengths.every((n) => n === lengths[0]),
      `the sentences have ${lengths.join(', ')} characters, expected the same number`,
    );
  },
  examples: [
    { response: 'Cats nap. Dogs run. Owls fly.', pass: true },
    { response: 'Cats nap. Dogs run fast. Owls fly.', pass: false },
  ],
});

export const overlap = defineConstraint({
  id: 'ratio:overlap',
  source: 'ifbench',
  kwargs: z.strictObject({ reference_text: kw.str(), percentage: kw.count() }),
  check(response, { reference_text, percentage }) {
    // Character trigrams, as the reference computes them, although the prompt says "trigram".
    const { distinct, shared } = sharedCounts(response, trigrams(reference_text));
    if (distinct === 0) return fail('the response is shorter than three characters');
    const share = (shared / distinct) * 100;
    return verdict(
      percentage - 2 <= share && share <= percentage + 2,
      `character-trigram overlap with the reference is ${share.toFixed(1)}%, expected ${percentage}% ± 2%`,
    );
  },
  examples: [
    { response: 'abcdef', kwargs: { reference_text: 'abcdef', percentage: 100 }, pass: true },
    { response: 'abcdef', kwargs: { reference_text: 'xyz', percentage: 50 }, pass: false },
  ],
});

/** The last or the second-to-last character is an emoji, as the reference tests. */
function endsWithEmoji(text: string): boolean {
  return isEmojiChar(lastChar(text)) || isEmojiChar(secondToLastChar(text) || lastChar(text));
}

export const emojiSentences = defineConstraint({
  id: 'format:emoji',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    // Sentence by sentence, stopping at the first that fails. `waiting`: the one before has no
    // emoji at its end, and an emoji that Punkt attached to the start of this one also counts.
    let n = 0;
    let waiting = false;
    for (const sentence of sentences(response)) {
      const text = pyStrip(removePunctuation(sentence));
      if (waiting && (text === '' || !isEmojiChar(firstChar(text)))) return fail(`sentence ${n} does not end with an emoji`);
      n++;
      if (text === '') return fail(`sentence ${n} is empty once punctuation is removed`);
      waiting = !endsWithEmoji(text);
    }
    return waiting ? fail(`sentence ${n} does not end with an emoji`) : PASS;
  },
  examples: [
    { response: 'I love rockets 🚀. They fly high 🌙.', pass: true },
    { response: 'I love rockets. They fly high 🌙.', pass: false },
  ],
});

const wholeWords = new Map<string, RegExp>();

/** `\bword\b`, case-insensitive; compiled once per word, as Python's `re` caches patterns. */
function wholeWord(word: string): RegExp {
  let re = wholeWords.get(word);
  if (!re) {
    re = new RegExp(`${PY_B}${escapeRegExp(word)}${PY_B}`, 'iu');
    // Labels repeat the same few words; a bound keeps odd input from growing the cache.
    if (wholeWords.size > 1024) wholeWords.clear();
    wholeWords.set(word, re);
  }
  return re;
}

export const keywordSentence = defineConstraint({
  id: 'sentence:keyword',
  source: 'ifbench',
  kwargs: z.strictObject({ word: kw.nonEmptyStr(), N: kw.count() }),
  check(response, { word, N }) {
    // Only the sentences up to N are split, unless N < 1 reads from the end. Fewer than asked
    // for are all there are, so the count in the reason is exact.
    const sentences = N >= 1 ? leadingSentences(response, Math.ceil(N)) : sentTokenize(response);
    if (sentences.length < N) return fail(`found ${plural(sentences.length, 'sentence')}, so there is no sentence ${N}`);
    // Python's `sentences[int(N - 1)]`: N = 0 reads the last sentence.
    const index = Math.trunc(N - 1);
    const sentence = sentences[index < 0 ? sentences.length + index : index] ?? '';
    return verdict(wholeWord(word).test(sentence), `sentence ${N} does not contain "${word}"`);
  },
  examples: [
    { response: 'First one. The giraffe is tall.', kwargs: { word: 'giraffe', N: 2 }, pass: true },
    { response: 'The giraffe is first. Second one.', kwargs: { word: 'giraffe', N: 2 }, pass: false },
  ],
});

export const alliterationIncrement = defineConstraint({
  id: 'sentence:alliteration_increment',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    let previous = -1;
    let i = 0;
    for (const sentence of sentences(response)) {
      const initials = pySplit(sentence.toLowerCase())
        .map((w) => firstChar(pyLstrip(w, PUNCT_AND_SPACE)))
        .filter((c) => c !== '');
      let run = 0;
      let inRun = false;
      for (let j = 0; j + 1 < initials.length; j++) {
        if (initials[j] === initials[j + 1]) {
          run += inRun ? 1 : 2;
          inRun = true;
        } else inRun = false;
      }
      if (run <= previous) return fail(`sentence ${i + 1} has ${run} alliterative words, no more than the sentence before (${previous})`);
      previous = run;
      i++;
    }
    return PASS;
  },
  examples: [
    { response: 'A cat sat. Big bold bears. Silly snakes slither slowly.', pass: true },
    { response: 'Big bold bears. A cat sat.', pass: false },
  ],
});

export const incrementWords = defineConstraint({
  id: 'sentence:increment',
  source: 'ifbench',
  kwargs: z.strictObject({ small_n: kw.count() }),
  check(response, { small_n }) {
    let previous: number | undefined;
    let i = 0;
    for (const sentence of sentences(response)) {
      const count = countWordsWithoutPunctuation(sentence);
      if (previous !== undefined && count !== previous + small_n) {
        return fail(`sentence ${i + 1} has ${plural(count, 'word')}, expected ${previous + small_n}`);
      }
      previous = count;
      i++;
    }
    return PASS;
  },
  examples: [
    { response: 'One. One two. One two three.', kwargs: { small_n: 1 }, pass: true },
    { response: 'One two. One.', kwargs: { small_n: 1 }, pass: false },
  ],
});

export const lastFirst = defineConstraint({
  id: 'words:last_first',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const sentences = sentTokenize(response);
    for (let i = 0; i + 1 < sentences.length; i++) {
      const last = pySplit(pyRstrip(sentences[i] as string, PUNCT_AND_SPACE)).pop();
      const first = pySplit(pyLstrip(sentences[i + 1] as string, PUNCT_AND_SPACE))[0];
      if (last === undefined || first === undefined) return fail(`sentence ${i + 1} or ${i + 2} has no words`);
      if (last.toLowerCase() !== first.toLowerCase()) {
        return fail(`sentence ${i + 1} ends with "${last}" but sentence ${i + 2} starts with "${first}"`);
      }
    }
    return PASS;
  },
  examples: [
    { response: 'I like the sea. Sea air is fresh.', pass: true },
    { response: 'I like the sea. Air is fresh.', pass: false },
  ],
});

export const SENTENCE_CONSTRAINTS = [
  stopWords,
  sentenceType,
  sentenceBalance,
  sentenceWords,
  overlap,
  emojiSentences,
  keywordSentence,
  alliterationIncrement,
  incrementWords,
  lastFirst,
];
