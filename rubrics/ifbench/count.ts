import { z } from 'zod';
import { defineConstraint, fail, kw, NO_KWARGS, PASS, plural, verdict } from '../constraint';
import { isPunctOrSpace, isSpaceCode, PUNCT_AND_SPACE, punctuationStripped, pyIsDigit, pySplit, pyStrip, removePunctuation, scanWords } from '../text/py';
import { DistinctSpans, HASH_BASIS, hashStep } from '../text/spans';
import { capitalizedWordRuns, countWords, wordTokenize } from '../text/words';

// Characters are read as `charCodeAt.call(s, i)`: see rubrics/text/py.ts.
const charCodeAt = String.prototype.charCodeAt;

export const wordCountRange = defineConstraint({
  id: 'count:word_count_range',
  source: 'ifbench',
  kwargs: z.strictObject({ min_words: kw.count(), max_words: kw.count() }),
  check(response, { min_words, max_words }) {
    const n = countWords(response);
    return verdict(min_words <= n && n <= max_words, `found ${plural(n, 'word')}, expected between ${min_words} and ${max_words}`);
  },
  examples: [
    { response: 'one two three four', kwargs: { min_words: 3, max_words: 5 }, pass: true },
    { response: 'one two', kwargs: { min_words: 3, max_words: 5 }, pass: false },
  ],
});

/** The table `count:unique_word_count` counts in, reused: the checkers are synchronous. */
const distinctWords = new DistinctSpans();

/**
 * The number of distinct words of `text.split()`, each stripped of `string.punctuation + ' '`
 * (an all-punctuation word strips to "", which counts too). One pass finds each word, strips it
 * and hashes what is left: a word's hash is the one it had at its last character that is not
 * punctuation.
 */
function countDistinctStrippedWords(text: string): number {
  const unique = distinctWords;
  // A word takes at least two units, itself and the whitespace after it.
  unique.reset(text, (text.length >> 1) + 1);
  let inWord = false;
  let from = -1;
  let to = -1;
  let hash = HASH_BASIS;
  let hashTo = HASH_BASIS;
  for (let i = 0, length = text.length; i < length; i++) {
    const code = charCodeAt.call(text, i);
    if (isSpaceCode(code)) {
      if (inWord) unique.entry(from < 0 ? i : from, from < 0 ? i : to, from < 0 ? HASH_BASIS : hashTo);
      inWord = false;
      continue;
    }
    if (!inWord) {
      inWord = true;
      from = -1;
    }
    if (isPunctOrSpace(code)) {
      if (from >= 0) hash = hashStep(hash, code);
      continue;
    }
    if (from < 0) {
      from = i;
      hash = HASH_BASIS;
    }
    hash = hashStep(hash, code);
    to = i + 1;
    hashTo = hash;
  }
  if (inWord) unique.entry(from < 0 ? text.length : from, from < 0 ? text.length : to, from < 0 ? HASH_BASIS : hashTo);
  return unique.size;
}

export const uniqueWordCount = defineConstraint({
  id: 'count:unique_word_count',
  source: 'ifbench',
  kwargs: z.strictObject({ N: kw.count() }),
  check(response, { N }) {
    const n = countDistinctStrippedWords(response.toLowerCase());
    return verdict(n >= N, `found ${plural(n, 'unique word')}, expected at least ${N}`);
  },
  examples: [
    { response: 'Alpha beta, gamma delta!', kwargs: { N: 4 }, pass: true },
    { response: 'Alpha alpha ALPHA.', kwargs: { N: 2 }, pass: false },
  ],
});

const CONJUNCTIONS = new Set(['and', 'but', 'for', 'nor', 'or', 'so', 'yet']);

export const conjunctions = defineConstraint({
  id: 'count:conjunctions',
  source: 'ifbench',
  kwargs: z.strictObject({ small_n: kw.count() }),
  check(response, { small_n }) {
    // The reference keeps the words as written, so "and" and "And," count as two. A word is
    // built only when, stripped, it is as long as a conjunction (2 or 3 units).
    const found = new Set<string>();
    scanWords(response, (start, end) => {
      const [from, to] = punctuationStripped(response, start, end);
      if (to - from < 2 || to - from > 3) return;
      if (CONJUNCTIONS.has(response.slice(from, to).toLowerCase())) found.add(response.slice(start, end));
    });
    return verdict(found.size >= small_n, `found ${plural(found.size, 'different coordinating conjunction')}, expected at least ${small_n}`);
  },
  examples: [
    { response: 'Cats and dogs, but not birds, or fish.', kwargs: { small_n: 3 }, pass: true },
    { response: 'Cats and dogs and birds.', kwargs: { small_n: 2 }, pass: false },
  ],
});

export const PERSON_NAMES: ReadonlySet<string> = new Set(
  (
    'Emma Liam Sophia Jackson Olivia Noah Ava Lucas Isabella Mason Mia Ethan Charlotte Alexander Amelia Benjamin Harper ' +
    'Leo Zoe Daniel Chloe Samuel Lily Matthew Grace Owen Abigail Gabriel Ella Jacob Scarlett Nathan Victoria Elijah Layla ' +
    'Nicholas Audrey David Hannah Christopher Penelope Thomas Nora Andrew Aria Joseph Claire Ryan Stella Jonathan'
  ).split(' '),
);

export const personNames = defineConstraint({
  id: 'count:person_names',
  source: 'ifbench',
  kwargs: z.strictObject({ N: kw.count() }),
  check(response, { N }) {
    // The names are all word characters, so `\bName\b` matches exactly when a maximal run of
    // word characters equals the name; each is a capital and lowercase letters, ASCII.
    const found = new Set<string>();
    for (const run of capitalizedWordRuns(response)) if (PERSON_NAMES.has(run)) found.add(run);
    const n = found.size;
    return verdict(n >= N, `mentions ${plural(n, 'different name')} from the list, expected at least ${N}`);
  },
  examples: [
    { response: 'Emma met Liam and Noah.', kwargs: { N: 3 }, pass: true },
    { response: 'Emmanuel met EMMA.', kwargs: { N: 1 }, pass: false },
  ],
});

export const numbers = defineConstraint({
  id: 'count:numbers',
  source: 'ifbench',
  kwargs: z.strictObject({ N: kw.count() }),
  check(response, { N }) {
    // Punctuation goes first, so "3.14" and "1,000" are one number each.
    const n = removePunctuation(response).match(/\p{Nd}+/gu)?.length ?? 0;
    return verdict(n === N, `found ${plural(n, 'number')}, expected exactly ${N}`);
  },
  examples: [
    { response: 'Pi is 3.14 and a thousand is 1,000.', kwargs: { N: 2 }, pass: true },
    { response: '1 2 3', kwargs: { N: 2 }, pass: false },
  ],
});

const PRONOUNS = new Set(
  (
    'i me we us you he him she her it they them my mine our ours your yours his hers its their theirs myself ourselves ' +
    'yourself yourselves himself herself itself themselves this that these those who whom whose which what whoever ' +
    'whomever whatever whichever anybody anyone anything everybody everyone everything nobody nothing somebody someone ' +
    'something each either neither both all some any none'
  ).split(' '),
);

/** The first letters of the pronouns and their longest length: most tokens are ruled out by them. */
const PRONOUN_INITIAL = new Uint8Array(128);
for (const p of PRONOUNS) PRONOUN_INITIAL[p.charCodeAt(0)] = 1;
const LONGEST_PRONOUN = Math.max(...[...PRONOUNS].map((p) => p.length));

/** `PRONOUNS.has(token)`, hashing only tokens that could be one: the set is all ASCII. */
function isPronoun(token: string): boolean {
  if (token.length > LONGEST_PRONOUN) return false;
  const initial = charCodeAt.call(token, 0);
  return initial < 128 && PRONOUN_INITIAL[initial] === 1 && PRONOUNS.has(token);
}

export const pronouns = defineConstraint({
  id: 'count:pronouns',
  source: 'ifbench',
  kwargs: z.strictObject({ N: kw.count() }),
  check(response, { N }) {
    const n = wordTokenize(response.replace(/\//g, ' ').toLowerCase()).filter(isPronoun).length;
    return verdict(n >= N, `found ${plural(n, 'pronoun')}, expected at least ${N}`);
  },
  examples: [
    { response: 'She told him that they would help us.', kwargs: { N: 5 }, pass: true },
    { response: 'The cat sat.', kwargs: { N: 1 }, pass: false },
  ],
});

export const punctuationCover = defineConstraint({
  id: 'count:punctuation',
  source: 'ifbench',
  kwargs: NO_KWARGS,
  check(response) {
    if (!(response.includes('!?') || response.includes('?!') || response.includes('‽'))) return fail('no interrobang (?! or !? or ‽)');
    let rest = response.replace('?!', '');
    if (rest.length === response.length) rest = response.replace('!?', '');
    const missing = ['.', ',', '!', '?', ';', ':'].filter((p) => !rest.includes(p));
    return verdict(missing.length === 0, `missing punctuation ${missing.map((p) => `"${p}"`).join(', ')}`);
  },
  examples: [
    { response: 'Wait, what?! Yes: this; that. Really? Wow!', pass: true },
    { response: 'Wait, what?! Yes.', pass: false },
  ],
});

function isJapanese(word: string): boolean {
  return /[\u3040-\u30ff\u4e00-\u9fff]/u.test(word);
}

export const wordsJapanese = defineConstraint({
  id: 'count:words_japanese',
  source: 'ifbench',
  kwargs: z.strictObject({ N: kw.count().positive() }),
  check(response, { N }) {
    for (const [i, raw] of pySplit(response).entries()) {
      const word = pyStrip(raw, PUNCT_AND_SPACE);
      if ((i + 1) % N === 0 && word !== '' && !pyIsDigit(word) && !isJapanese(word)) {
        return fail(`word ${i + 1} ("${word}") is not Japanese`);
      }
    }
    return PASS;
  },
  examples: [
    { response: 'I like 寿司 very much 本当に', kwargs: { N: 3 }, pass: true },
    { response: 'I like sushi very much', kwargs: { N: 3 }, pass: false },
  ],
});

export const keywordsMultiple = defineConstraint({
  id: 'count:keywords_multiple',
  source: 'ifbench',
  kwargs: z.strictObject({
    keyword1: kw.nonEmptyStr(),
    keyword2: kw.nonEmptyStr(),
    keyword3: kw.nonEmptyStr(),
    keyword4: kw.nonEmptyStr(),
    keyword5: kw.nonEmptyStr(),
  }),
  check(response, k) {
    const text = response.toLowerCase();
    const wanted: Array<[string, number]> = [
      [k.keyword1, 1],
      [k.keyword2, 2],
      [k.keyword3, 3],
      [k.keyword4, 5],
      [k.keyword5, 7],
    ];
    for (const [keyword, times] of wanted) {
      // A substring count, as the reference's `str.count`: "art" is counted in "start".
      const needle = keyword.trim().toLowerCase();
      const n = needle === '' ? text.length + 1 : text.split(needle).length - 1;
      if (n !== times) return fail(`"${keyword.trim()}" appears ${plural(n, 'time')}, expected exactly ${times}`);
    }
    return PASS;
  },
  examples: [
    {
      response: 'a b b c c c d d d d d e e e e e e e',
      kwargs: { keyword1: 'a', keyword2: 'b', keyword3: 'c', keyword4: 'd', keyword5: 'e' },
      pass: true,
    },
    { response: 'a b c d e', kwargs: { keyword1: 'a', keyword2: 'b', keyword3: 'c', keyword4: 'd', keyword5: 'e' }, pass: false },
  ],
});

export const COUNT_CONSTRAINTS = [
  wordCountRange,
  uniqueWordCount,
  conjunctions,
  personNames,
  numbers,
  pronouns,
  punctuationCover,
  wordsJapanese,
  keywordsMultiple,
];
