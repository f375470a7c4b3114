import { z } from 'zod';
import { compare, defineConstraint, fail, kw, plural, relationText, verdict } from '../constraint';
import { sentTokenize } from '../text/punkt';
import { PY_SPACE, pySplit, pyStrip } from '../text/py';
import { countWords } from '../text/words';

export const numberSentences = defineConstraint({
  id: 'length_constraints:number_sentences',
  source: 'ifeval',
  kwargs: z.strictObject({ num_sentences: kw.count(), relation: kw.relation() }),
  check(response, { num_sentences, relation }) {
    const n = sentTokenize(response).length;
    return verdict(compare(n, relation, num_sentences), `found ${plural(n, 'sentence')}, expected ${relationText(relation, num_sentences)}`);
  },
  examples: [
    { response: 'Dr. Smith arrived at 3 p.m. He left.', kwargs: { num_sentences: 2, relation: 'at least' }, pass: true },
    { response: 'One. Two. Three.', kwargs: { num_sentences: 3, relation: 'less than' }, pass: false },
  ],
});

const DIVIDER = new RegExp(`[${PY_SPACE}]?\\*\\*\\*[${PY_SPACE}]?`, 'u');

export const numberParagraphs = defineConstraint({
  id: 'length_constraints:number_paragraphs',
  source: 'ifeval',
  kwargs: z.strictObject({ num_paragraphs: kw.count() }),
  check(response, { num_paragraphs }) {
    const parts = response.split(DIVIDER);
    let n = parts.length;
    for (const [i, part] of parts.entries()) {
      if (pyStrip(part) !== '') continue;
      // An empty first or last chunk is a stray divider; an empty one inside is a paragraph missing.
      if (i === 0 || i === parts.length - 1) n--;
      else return fail(`paragraph ${i + 1} of the *** -separated paragraphs is empty`);
    }
    return verdict(n === num_paragraphs, `found ${plural(n, 'paragraph')} separated by ***, expected ${num_paragraphs}`);
  },
  examples: [
    { response: 'First.\n***\nSecond.\n***\nThird.', kwargs: { num_paragraphs: 3 }, pass: true },
    { response: 'First.\n***\nSecond.', kwargs: { num_paragraphs: 3 }, pass: false },
    { response: 'a\n\n***\n\n\n***\nb', kwargs: { num_paragraphs: 2 }, pass: false },
  ],
});

export const numberWords = defineConstraint({
  id: 'length_constraints:number_words',
  source: 'ifeval',
  kwargs: z.strictObject({ num_words: kw.count(), relation: kw.relation() }),
  check(response, { num_words, relation }) {
    const n = countWords(response);
    return verdict(compare(n, relation, num_words), `found ${plural(n, 'word')}, expected ${relationText(relation, num_words)}`);
  },
  examples: [
    { response: "don't e-mail me", kwargs: { num_words: 5, relation: 'at least' }, pass: true },
    { response: 'one two three', kwargs: { num_words: 3, relation: 'less than' }, pass: false },
  ],
});

const FIRST_WORD_STOP = new Set(['.', ',', '?', '!', "'", '"']);

export const nthParagraphFirstWord = defineConstraint({
  id: 'length_constraints:nth_paragraph_first_word',
  source: 'ifeval',
  kwargs: z
    .strictObject({ num_paragraphs: kw.count(), nth_paragraph: kw.index(), first_word: kw.str() })
    .refine((k) => k.nth_paragraph <= k.num_paragraphs, { message: 'must not exceed num_paragraphs', path: ['nth_paragraph'] }),
  check(response, { num_paragraphs, nth_paragraph, first_word }) {
    const parts = response.split('\n\n');
    const n = parts.filter((p) => pyStrip(p) !== '').length;
    // The reference counts non-blank paragraphs but indexes the unfiltered list.
    const paragraph = nth_paragraph <= n ? pyStrip(parts[nth_paragraph - 1] ?? '') : '';
    if (nth_paragraph > n) return fail(`found ${plural(n, 'paragraph')} separated by blank lines, expected ${num_paragraphs}`);
    if (paragraph === '') return fail(`paragraph ${nth_paragraph} is empty`);
    let word = pyStrip(pySplit(paragraph)[0] ?? '');
    word = word.replace(/^'+/, '').replace(/^"+/, '');
    let first = '';
    for (const ch of word) {
      if (FIRST_WORD_STOP.has(ch)) break;
      first += ch.toLowerCase();
    }
    const expected = first_word.toLowerCase();
    if (n !== num_paragraphs) return fail(`found ${plural(n, 'paragraph')} separated by blank lines, expected ${num_paragraphs}`);
    return verdict(first === expected, `paragraph ${nth_paragraph} starts with "${first}", expected "${expected}"`);
  },
  examples: [
    { response: 'Intro here.\n\nJasper runs.', kwargs: { num_paragraphs: 2, nth_paragraph: 2, first_word: 'jasper' }, pass: true },
    { response: '\n\nFirst para.\n\nSecond para.', kwargs: { num_paragraphs: 2, nth_paragraph: 2, first_word: 'second' }, pass: false },
    { response: 'Intro.\n\nOther start.', kwargs: { num_paragraphs: 2, nth_paragraph: 2, first_word: 'jasper' }, pass: false },
  ],
});

export const LENGTH_CONSTRAINTS = [numberSentences, numberParagraphs, numberWords, nthParagraphFirstWord];
