/**
 * English syllable count for `words:odd_even_syllables`. The reference uses syllapy, a word list
 * plus a vowel-group heuristic; the word list is not part of this project, so every word gets the
 * heuristic: one syllable per vowel group, a silent final "e" dropped, a final consonant + "le"
 * kept, and at least one.
 */
const VOWELS = new Set('aeiouy');

export function countSyllables(raw: string): number {
  const word = raw.toLowerCase().replace(/[^a-z]/g, '');
  if (word === '') return 0;
  let n = VOWELS.has(word[0] as string) ? 1 : 0;
  for (let i = 1; i < word.length; i++) if (VOWELS.has(word[i] as string) && !VOWELS.has(word[i - 1] as string)) n++;
  if (word.endsWith('e')) n--;
  if (word.endsWith('le') && word.length > 2 && !VOWELS.has(word[word.length - 3] as string)) n++;
  return n <= 0 ? 1 : n;
}
