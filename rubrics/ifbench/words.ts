import { z } from 'zod';
import { defineConstraint, fail, kw, NO_KWARGS, PASS, plural, type Verdict, verdict } from '../constraint';
import { codePointLength, firstChar, isPalindromeSpan } from '../text/chars';
import { countByLines } from '../text/lines';
import { firstSentence, leadingSentences } from '../text/punkt';
import { isSpaceCode, PUNCT_AND_SPACE, PUNCTUATION, pyHasAlnumChar, pyLen, pySplit, pyStrip, removePunctuation, scanWords } from '../text/py';
import { DistinctSpans, HASH_BASIS, hashStep } from '../text/spans';
import { countSyllables } from '../text/syllables';
import { startsWithVerb } from '../text/verbs';
import { tokensAtEnds, treebankTokenize, wordTokenize } from '../text/words';

// Characters are read as `charCodeAt.call(s, i)`: see rubrics/text/py.ts.
const charCodeAt = String.prototype.charCodeAt;
const codePointAt = String.prototype.codePointAt;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';

export const alphabet = defineConstraint({
  id: 'words:alphabet',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    // Word by word, stopping at the first out of sequence: most responses fail early.
    const text = pyStrip(removePunctuation(response), PUNCT_AND_SPACE);
    let letter = '';
    let failure: Verdict | undefined;
    scanWords(text, (start, end) => {
      const raw = text.slice(start, end);
      if (letter === '') {
        letter = firstChar(raw).toLowerCase();
        if (!ALPHABET.includes(letter) || letter.length !== 1) failure = fail(`the first word does not start with a letter a-z`);
        return failure !== undefined;
      }
      const word = pyStrip(raw, PUNCT_AND_SPACE).toLowerCase();
      if (word === '') return false;
      letter = ALPHABET[(ALPHABET.indexOf(letter) + 1) % 26] as string;
      if (firstChar(word) !== letter) failure = fail(`"${raw}" should start with "${letter}"`);
      return failure !== undefined;
    });
    if (letter === '') return fail('the response has no words');
    return failure ?? PASS;
  },
  examples: [
    { response: 'Apples bake crisply, delighting everyone.', pass: true },
    { response: 'Apples are tasty.', pass: false },
  ],
});

const VOWELS = 'aeiou';

/** The vowels a-e-i-o-u that `text` uses, in alphabetical order; no vowel is in a surrogate pair. */
function usedVowels(text: string): string[] {
  let used = 0;
  for (let i = 0, length = text.length; i < length; i++) {
    const vowel = VOWELS.indexOf(String.fromCharCode(charCodeAt.call(text, i)));
    if (vowel >= 0) used |= 1 << vowel;
  }
  return [...VOWELS].filter((_, i) => used & (1 << i));
}

export const vowel = defineConstraint({
  id: 'words:vowel',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const paragraphs = pyStrip(response).split('\n');
    if (paragraphs.length !== 1) return fail(`found ${paragraphs.length} lines, expected a single paragraph`);
    const used = usedVowels((paragraphs[0] as string).toLowerCase());
    return verdict(used.length <= 3, `uses ${used.length} different vowels (${used.join(', ')}), expected at most 3`);
  },
  examples: [
    { response: 'A cat can tap a map.', pass: true },
    { response: 'The quick brown fox jumps over it.', pass: false },
  ],
});

/** The consonant letters, by UTF-16 unit (all ASCII, so no other unit is one). */
const CONSONANT = new Uint8Array(128);
for (const ch of 'bcdfghjklmnpqrstvwxyz') CONSONANT[ch.charCodeAt(0)] = 1;
const isConsonant = (code: number): boolean => code < 128 && CONSONANT[code] === 1;

/** Whether `text.slice(start, end)` has two consonants in a row. */
function hasCluster(text: string, start: number, end: number): boolean {
  for (let i = start; i + 1 < end; i++) if (isConsonant(charCodeAt.call(text, i)) && isConsonant(charCodeAt.call(text, i + 1))) return true;
  return false;
}

export const consonants = defineConstraint({
  id: 'words:consonants',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const text = pyStrip(response.toLowerCase());
    let bad: string | undefined;
    scanWords(text, (start, end) => {
      if (hasCluster(text, start, end)) return false;
      bad = text.slice(start, end);
      return true;
    });
    return bad === undefined ? PASS : fail(`"${bad}" has no consonant cluster`);
  },
  examples: [
    { response: 'Strong brisk winds blast.', pass: true },
    { response: 'A strong wind.', pass: false },
  ],
});

/**
 * Palindromes of 5+ characters among the words, each read in place; words never cross a newline,
 * so counted by lines.
 */
const palindromeCount = countByLines((text) => {
  const lower = removePunctuation(text).toLowerCase();
  let n = 0;
  scanWords(lower, (start, end) => {
    if (end - start >= 5 && isPalindromeSpan(lower, start, end) && codePointLength(lower, start, end) >= 5) n++;
  });
  return n;
});

export const palindrome = defineConstraint({
  id: 'words:palindrome',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const found = palindromeCount(response);
    return verdict(found >= 10, `found ${plural(found, 'palindrome')} of 5+ letters, expected at least 10`);
  },
  examples: [
    { response: 'level radar civic kayak rotor refer madam racecar stats tenet', pass: true },
    { response: 'level radar civic', pass: false },
  ],
});

const PRIMES = new Set([2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97]);

export const primeLengths = defineConstraint({
  id: 'words:prime_lengths',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const bad = pySplit(removePunctuation(response)).find((w) => !PRIMES.has(pyLen(w)));
    const n = pyLen(bad ?? '');
    return verdict(bad === undefined, `"${bad}" has ${n} letter${n === 1 ? '' : 's'}, not a prime number`);
  },
  examples: [
    { response: 'We ate three plums.', pass: true },
    { response: 'This word fails.', pass: false },
  ],
});

export const startVerb = defineConstraint({
  id: 'words:start_verb',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    // The first of `word_tokenize(response)`, from the first sentence alone.
    const sentence = firstSentence(response);
    const token = sentence === undefined ? undefined : treebankTokenize(sentence)[0];
    return verdict(token !== undefined && startsWithVerb(token), `the first word "${token ?? ''}" is not a verb`);
  },
  examples: [
    { response: 'Identify the main causes first.', pass: true },
    { response: 'The main causes are these.', pass: false },
  ],
});

/** The table and counts `words:repeats` counts in, reused: the checkers are synchronous. */
const repeatedWords = new DistinctSpans();
let wordCounts = new Int32Array(0);

/**
 * The words of `text.split()`, distinct, in order of first use, with how often each is used
 * (`wordCounts`, by entry): one pass finds, hashes and counts them, without building them.
 */
function countWordsOf(text: string): DistinctSpans {
  const maxWords = (text.length >> 1) + 1;
  repeatedWords.reset(text, maxWords);
  if (wordCounts.length < maxWords) wordCounts = new Int32Array(2 * maxWords);
  let start = -1;
  let hash = HASH_BASIS;
  const count = (end: number): void => {
    const added = repeatedWords.size;
    const entry = repeatedWords.entry(start, end, hash);
    // A new entry's count is stale, from an earlier text.
    wordCounts[entry] = entry === added ? 1 : (wordCounts[entry] as number) + 1;
  };
  for (let i = 0, length = text.length; i < length; i++) {
    const code = charCodeAt.call(text, i);
    if (isSpaceCode(code)) {
      if (start >= 0) count(i);
      start = -1;
      continue;
    }
    if (start < 0) {
      start = i;
      hash = HASH_BASIS;
    }
    hash = hashStep(hash, code);
  }
  if (start >= 0) count(text.length);
  return repeatedWords;
}

export const repeats = defineConstraint({
  id: 'words:repeats',
  source: 'ifbench',
  kwargs: z.strictObject({ small_n: kw.count() }),
  check(response, { small_n }) {
    const text = removePunctuation(response.toLowerCase());
    const words = countWordsOf(text);
    // The first word, in order of first use, that is repeated too often.
    for (let entry = 0; entry < words.size; entry++) {
      const n = wordCounts[entry] as number;
      if (n > small_n) return fail(`"${words.spanText(entry)}" is repeated ${n} times, expected at most ${small_n}`);
    }
    return PASS;
  },
  examples: [
    { response: 'The cat and the dog.', kwargs: { small_n: 2 }, pass: true },
    { response: 'The the the cat.', kwargs: { small_n: 2 }, pass: false },
  ],
});

export const oddEvenSyllables = defineConstraint({
  id: 'words:odd_even_syllables',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const text = removePunctuation(response).toLowerCase();
    // Word by word (`split()` yields no blank word), until two neighbours share a parity.
    let previous = '';
    let previousParity = -1;
    let pair: [string, string] | undefined;
    scanWords(text, (start, end) => {
      const word = text.slice(start, end);
      const parity = countSyllables(word) % 2;
      if (parity === previousParity) {
        pair = [previous, word];
        return true;
      }
      previous = word;
      previousParity = parity;
      return false;
    });
    if (pair === undefined) return PASS;
    const [first, second] = pair;
    return fail(`"${first}" and "${second}" both have an ${previousParity ? 'odd' : 'even'} number of syllables`);
  },
  examples: [
    { response: 'cat water dog', pass: true },
    { response: 'cat dog', pass: false },
  ],
});

export const paragraphLastFirst = defineConstraint({
  id: 'words:paragraph_last_first',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    for (const raw of response.split('\n')) {
      const paragraph = pyStrip(raw).toLowerCase();
      if (paragraph === '') continue;
      const words = pySplit(pyStrip(paragraph, PUNCT_AND_SPACE));
      if (words.length === 0) continue;
      if (words[0] !== words[words.length - 1]) return fail(`a paragraph starts with "${words[0]}" but ends with "${words[words.length - 1]}"`);
    }
    return PASS;
  },
  examples: [
    { response: 'Time heals all wounds, given time.\nLove is patient, love', pass: true },
    { response: 'Time heals all wounds.', pass: false },
  ],
});

export const noConsecutive = defineConstraint({
  id: 'words:no_consecutive',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    const text = removePunctuation(response.toLowerCase());
    // Word by word, comparing first code points, until two neighbours share one.
    let previous: [number, number] = [0, 0];
    let previousHead = -1;
    let pair: [string, string] | undefined;
    scanWords(text, (start, end) => {
      const head = codePointAt.call(text, start) as number;
      if (head === previousHead) {
        pair = [text.slice(previous[0], previous[1]), text.slice(start, end)];
        return true;
      }
      previous = [start, end];
      previousHead = head;
      return false;
    });
    return pair === undefined ? PASS : fail(`"${pair[0]}" and "${pair[1]}" start with the same letter`);
  },
  examples: [
    { response: 'A cat jumped over every fence.', pass: true },
    { response: 'Big bears roam.', pass: false },
  ],
});

/** Tokens with at least one letter or digit: NLTK tokens less the punctuation ones. */
function wordTokensWithoutPunctuation(text: string): string[] {
  return wordTokenize(text).filter(pyHasAlnumChar);
}

export const keywordsSpecificPosition = defineConstraint({
  id: 'words:keywords_specific_position',
  source: 'ifbench',
  kwargs: z.strictObject({ keyword: kw.nonEmptyStr(), n: kw.index(), m: kw.index() }),
  check(response, { keyword, n, m }) {
    // Fewer sentences than asked for are all there are, so the count in the reason is exact.
    const sentences = leadingSentences(response, n);
    if (sentences.length < n) return fail(`found ${plural(sentences.length, 'sentence')}, so there is no sentence ${n}`);
    const words = wordTokensWithoutPunctuation(sentences[n - 1] as string);
    if (words.length < m) return fail(`sentence ${n} has ${plural(words.length, 'word')}, so there is no word ${m}`);
    const word = words[m - 1] as string;
    return verdict(word.toLowerCase() === keyword.trim().toLowerCase(), `word ${m} of sentence ${n} is "${word}", expected "${keyword.trim()}"`);
  },
  examples: [
    { response: 'Hello there. I walk slowly home.', kwargs: { keyword: 'slowly', n: 2, m: 3 }, pass: true },
    { response: 'Hello there. I walk home slowly.', kwargs: { keyword: 'slowly', n: 2, m: 3 }, pass: false },
  ],
});

export const wordsPosition = defineConstraint({
  id: 'words:words_position',
  source: 'ifbench',
  kwargs: z.strictObject({ keyword: kw.str().transform((s) => s.trim()) }),
  check(response, { keyword }) {
    // Only the two ends of `word_tokenize(response)` are read.
    const { head, tail } = tokensAtEnds(response, 2, 3);
    const want = keyword.toLowerCase();
    if (head.length < 2) return fail('the response has fewer than two words');
    const last = tail[tail.length - 1] as string;
    // `token in string.punctuation` is a substring test in the reference.
    const secondToLast = PUNCTUATION.includes(last) ? tail[tail.length - 3] : tail[tail.length - 2];
    if (secondToLast === undefined) return fail('the response has fewer than two words besides punctuation');
    const second = head[1] as string;
    return verdict(
      second.toLowerCase() === want && secondToLast.toLowerCase() === want,
      `the second word is "${second}" and the second-to-last is "${secondToLast}", expected both to be "${keyword}"`,
    );
  },
  examples: [
    { response: 'A vibrant sky, truly vibrant now.', kwargs: { keyword: 'vibrant' }, pass: true },
    { response: 'The sky is vibrant.', kwargs: { keyword: 'vibrant' }, pass: false },
  ],
});

export const WORD_CONSTRAINTS = [
  alphabet,
  vowel,
  consonants,
  palindrome,
  primeLengths,
  startVerb,
  repeats,
  oddEvenSyllables,
  paragraphLastFirst,
  noConsecutive,
  keywordsSpecificPosition,
  wordsPosition,
];
