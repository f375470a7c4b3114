import { checkWith, passes } from '../../test/pure/constraint';
import { nthParagraphFirstWord, numberParagraphs, numberSentences, numberWords } from './length';

describe('IFEval length constraints', () => {
  describe('number_paragraphs (*** dividers)', () => {
    const n = (response: string, num_paragraphs: number) => passes(numberParagraphs, response, { num_paragraphs });
    it('splits on *** with at most one whitespace character either side', () => {
      expect(n('a *** b *** c', 3)).toBe(true);
      expect(n('a***b', 2)).toBe(true);
      expect(n('a\n***\nb', 2)).toBe(true);
    });
    it('drops an empty first or last chunk (a stray divider), refuses an empty one inside', () => {
      expect(n('***\na\n***\nb\n***', 2)).toBe(true);
      expect(checkWith(numberParagraphs, 'a\n***\n  \n***\nb', { num_paragraphs: 2 })).toEqual({
        pass: false,
        reason: 'paragraph 2 of the *** -separated paragraphs is empty',
      });
    });
    it('says how many it found', () => {
      expect(checkWith(numberParagraphs, 'a *** b', { num_paragraphs: 3 }).reason).toBe('found 2 paragraphs separated by ***, expected 3');
      expect(n('no divider at all', 1)).toBe(true);
    });
  });

  describe('number_words and number_sentences', () => {
    it('counts \\w runs as words and compares strictly for "less than", inclusively for "at least"', () => {
      // don, t, e, mail, me
      expect(passes(numberWords, "don't e-mail me", { num_words: 5, relation: 'at least' })).toBe(true);
      expect(passes(numberWords, "don't e-mail me", { num_words: 6, relation: 'at least' })).toBe(false);
      expect(passes(numberWords, 'one two three', { num_words: 3, relation: 'less than' })).toBe(false);
      expect(passes(numberWords, 'one two three', { num_words: 4, relation: 'less than' })).toBe(true);
      expect(checkWith(numberWords, 'one', { num_words: 2, relation: 'less than' })).toEqual({ pass: true, reason: '' });
      expect(checkWith(numberWords, 'one', { num_words: 2, relation: 'at least' }).reason).toBe('found 1 word, expected at least 2');
    });

    it('does not end a sentence at an abbreviation or a decimal point', () => {
      expect(checkWith(numberSentences, 'Dr. Smith paid 3.50 dollars. He left.', { num_sentences: 2, relation: 'less than' }).reason).toBe(
        'found 2 sentences, expected fewer than 2',
      );
      expect(passes(numberSentences, 'One. Two! Three?', { num_sentences: 3, relation: 'at least' })).toBe(true);
    });
  });

  describe('nth_paragraph_first_word (blank-line paragraphs)', () => {
    const first = (response: string, nth_paragraph: number, num_paragraphs: number, first_word: string) =>
      checkWith(nthParagraphFirstWord, response, { num_paragraphs, nth_paragraph, first_word });

    it('reads the first word lower-cased, without leading quotes and up to the first punctuation mark', () => {
      expect(first('Intro.\n\n"Jasper," she said.', 2, 2, 'jasper').pass).toBe(true);
      expect(first("Intro.\n\n'Jasper's' book", 2, 2, 'jasper').pass).toBe(true);
      // The expected word is compared lower-cased too.
      expect(first('Intro.\n\nJASPER ran.', 2, 2, 'Jasper').pass).toBe(true);
      expect(first('Intro.\n\nJasperine ran.', 2, 2, 'jasper')).toEqual({ pass: false, reason: 'paragraph 2 starts with "jasperine", expected "jasper"' });
    });

    it('needs the paragraph count too, counting non-blank paragraphs', () => {
      expect(first('A x\n\nB y\n\nC z', 2, 2, 'b')).toEqual({ pass: false, reason: 'found 3 paragraphs separated by blank lines, expected 2' });
      expect(first('A x\n\n   \n\nB y', 2, 2, 'b').pass).toBe(false);
      expect(first('only one', 2, 2, 'x').reason).toBe('found 1 paragraph separated by blank lines, expected 2');
    });

    it('indexes the unfiltered list, as the reference does: a blank chunk before the nth fails it', () => {
      // Four chunks ("A", "", "B", "C"), three of them non-blank: paragraph 2 is the blank one.
      expect(first('A\n\n\n\nB\n\nC', 2, 3, 'b')).toEqual({ pass: false, reason: 'paragraph 2 is empty' });
      expect(first('A\n\n\n\nB\n\nC', 3, 3, 'b').pass).toBe(true);
    });

    it('refuses an nth paragraph beyond num_paragraphs in the kwargs', () => {
      expect(nthParagraphFirstWord.kwargs.safeParse({ num_paragraphs: 2, nth_paragraph: 3, first_word: 'x' }).success).toBe(false);
      expect(nthParagraphFirstWord.kwargs.safeParse({ num_paragraphs: 2, nth_paragraph: 0, first_word: 'x' }).success).toBe(false);
    });
  });
});
