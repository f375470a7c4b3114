// Characters are read as `charCodeAt.call(s, i)`: see rubrics/text/py.ts.
const charCodeAt = String.prototype.charCodeAt;

/**
 * English syllable count for `words:odd_even_syllables`. The reference uses syllapy, a word list
 * plus a vowel-group heuristic; the word list is not part of this project, so every word gets the
 * heuristic: one syllable per vowel group, a silent final "e" dropped, a final consonant + "le"
 * kept, and at least one.
 */
const VOWELS = new Set('aeiouy');

const isVowel = (code: number): boolean => code === 0x61 || code === 0x65 || code === 0x69 || code === 0x6f || code === 0x75 || code === 0x79;

export function countSyllables(raw: string): number {
  for (let i = 0, length = raw.length; i < length; i++) if (charCodeAt.call(raw, i) >= 0x80) return countSyllablesOf(raw.toLowerCase().replace(/[^a-z]/g, ''));
  // ASCII: the same count over the letters, lowercased in place, without building the word.
  let n = 0;
  let letters = 0;
  let previousVowel = false;
  let last = 0;
  let second = 0;
  let third = 0;
  for (let i = 0, length = raw.length; i < length; i++) {
    let code = charCodeAt.call(raw, i);
    if (code >= 0x41 && code <= 0x5a) code += 0x20;
    if (code < 0x61 || code > 0x7a) continue;
    const vowel = isVowel(code);
    if (vowel && !previousVowel) n++;
    previousVowel = vowel;
    third = second;
    second = last;
    last = code;
    letters++;
  }
  if (letters === 0) return 0;
  if (last === 0x65) n--;
  if (last === 0x65 && second === 0x6c && letters > 2 && !isVowel(third)) n++;
  return n <= 0 ? 1 : n;
}

/** The count for a word of lowercase ASCII letters: the heuristic as written, which the scan above follows. */
export function countSyllablesOf(word: string): number {
  if (word === '') return 0;
  let n = VOWELS.has(word[0] as string) ? 1 : 0;
  for (let i = 1, length = word.length; i < length; i++) if (VOWELS.has(word[i] as string) && !VOWELS.has(word[i - 1] as string)) n++;
  if (word.endsWith('e')) n--;
  if (word.endsWith('le') && word.length > 2 && !VOWELS.has(word[word.length - 3] as string)) n++;
  return n <= 0 ? 1 : n;
}
