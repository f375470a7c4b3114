import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stopwordSet } from '../../rubrics/data';
import { parseCsv } from '../../rubrics/text/csv';
import { detectLanguage } from '../../rubrics/text/language';
import { pyHasAlnumChar, pyIsLower, pyIsUpper, pySplit, pyStrip } from '../../rubrics/text/py';
import { pyRegExp } from '../../rubrics/text/pyre';
import { contextHasSentbreak, contextHasSentbreakByTokens, leadingSentences, sentTokenize } from '../../rubrics/text/punkt';
import { PUNKT_WORD_RE, punktWords } from '../../rubrics/text/punkt-words';
import { plainTreebankTokens } from '../../rubrics/text/treebank-plain';
import { countStopwords, countWords, treebankByPasses, wordTokenize } from '../../rubrics/text/words';
import { looseVariants } from '../../rubrics/evaluate';
import { countSyllables, countSyllablesOf } from '../../rubrics/text/syllables';
import { sharedCounts, Trigrams } from '../../rubrics/text/trigrams';
import { memo, withMemo } from '../../rubrics/text/memo';
import { generated } from '../pure/generated';
import { sharedDir } from './helpers';

describe('Punkt sentence tokenizer (NLTK English model)', () => {
  it.each([
    ['Dr. Smith arrived at 3 p.m. He left.', ['Dr. Smith arrived at 3 p.m.', 'He left.']],
    ['(Sent1.) Sent2.', ['(Sent1.)', 'Sent2.']],
    ['He said "Hi." Then left.', ['He said "Hi."', 'Then left.']],
    ['Mr. and Mrs. J. R. R. Tolkien lived in the U.S.A. in 1990. They left.', ['Mr. and Mrs. J. R. R. Tolkien lived in the U.S.A. in 1990.', 'They left.']],
    ['One.\n\nTwo!  Three?', ['One.', 'Two!', 'Three?']],
    ['No break here', ['No break here']],
  ])('splits %j', (text, expected) => {
    expect(sentTokenize(text)).toEqual(expected);
  });
});

describe('Punkt internals', () => {
  it("the word scanner finds exactly the NLTK regex's matches", () => {
    const alphabet = ['a', 'B', '.', '.', ' ', '-', ',', "'", '"', '?', '!', ')', '(', ';', ':', '@', '*', '`', '[', ']', '&', '\u3000', '\t', '\u{1F600}', '1'];
    for (const line of generated(alphabet, 20000, 12)) {
      PUNKT_WORD_RE.lastIndex = 0;
      expect([line, punktWords(line)]).toEqual([line, line.match(PUNKT_WORD_RE) ?? []]);
    }
  });
  it('decides a period context by its leading tokens exactly as by all of its tokens', () => {
    const heads = ['e', 'etc', 'Dr', 'U', 'i', 'no', 'vs', 'Jan', '1', '12', 'a1', '1a', 'co-op', 'x.y', '', '-'];
    const rests = ['.', '?', '!', ' ', '\n', '\u00a0', ')', '"', "'", '(', '*', ':', '[', 'T', 'the', 'The', 'In', 'A', '1', ',', '-', '.', '?', '!', "'s", '**', '\u3000'];
    const tails = generated(rests, 6000, 6);
    let fast = 0;
    for (const head of heads) {
      for (const tail of tails) {
        for (const mark of ['.', '?']) {
          const context = `${head}${mark}${tail}`;
          expect([context, contextHasSentbreak(context)]).toEqual([context, contextHasSentbreakByTokens(context)]);
          if (/^([A-Za-z]+|[0-9]+)\.[\s)"'(*:[]/u.test(context)) fast++;
        }
      }
    }
    expect(fast).toBeGreaterThan(20000);
  });
  it('leading sentences are the first sentences of the whole split', () => {
    const text = 'Dr. Smith arrived. "He left." Then (quietly.) it ended! Did it? Yes.';
    const all = sentTokenize(text);
    expect(all).toHaveLength(6);
    for (const n of [0, 1, 2, 5, 6, 9]) expect(leadingSentences(text, n)).toEqual(all.slice(0, n));
  });
});

/** Every sentence of the responses in the IF conformance sets. */
function conformanceSentences(): string[] {
  return ['ifeval', 'ifbench'].flatMap((file) =>
    readFileSync(join(sharedDir(), 'conformance', 'if', `${file}_verdicts.jsonl`), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .flatMap((line) => sentTokenize((JSON.parse(line) as { response: string }).response)),
  );
}

describe('Treebank plain-sentence scanner', () => {
  const agrees = (sentence: string): void => {
    const plain = plainTreebankTokens(sentence);
    if (plain) expect([sentence, plain]).toEqual([sentence, treebankByPasses(sentence)]);
  };
  it('gives the regex passes\' tokens on generated plain sentences', () => {
    const alphabet = ['a', 'B', '1', '.', '.', '.', ' ', ' ', '\n', '\t', '\x1c', ',', ',', ':', ';', '?', '!', '(', ')', ']', '}', '>', '<', '-', '-', '*', '@', '&', '#', '_', '=', 'gon', 'na', 'can', 'not'];
    const sentences = generated(alphabet, 20000, 14);
    expect(sentences.filter((s) => plainTreebankTokens(s) !== undefined).length).toBeGreaterThan(16000);
    for (const sentence of sentences) agrees(sentence);
  });
  it('gives the regex passes\' tokens on generated plain sentences with quotes and apostrophes', () => {
    const alphabet = ['"', '"', '(', "'", "'", "'", 's', 'T', 'n', 'm', 'D', 'r', 'e', 'l', 'a', '_', '1', '.', '.', ' ', ',', ')', '>', '?', '*', '-', '-', ';', '\n', "n't", "'s", "'ll", "'RE", "'m", 'tis', 'ye'];
    const sentences = generated(alphabet, 20000, 12);
    expect(sentences.filter((s) => plainTreebankTokens(s) !== undefined).length).toBeGreaterThan(14000);
    for (const sentence of sentences) agrees(sentence);
  });
  it('gives the regex passes\' tokens on generated sentences with apostrophes inside words', () => {
    const alphabet = ['it', "'s", "'S", "'m", "'d", "'D", "'ll", "'LL", "'re", "'RE", "'ve", "n't", "N'T", "'", 'o', 'x', 'T', 'n', 'e', '1', '_', ' ', ' ', ' ', '\n', '\t', '.', '.', ',', ':', '?', ';', '*', '-', '--', ')', '(', '>', '...'];
    const sentences = generated(alphabet, 40000, 10);
    for (const sentence of sentences) agrees(sentence);
    for (const sentence of ["It's mine, isn't it?", "You'll see: we're done.", "Y'all's dogs' toys", "o'clock'd x'n't", "you'll's it's.\nok", "it's\tfine", "it's-x it's--x (it's)"]) agrees(sentence);
  });
  it('gives the regex passes\' tokens on generated sentences with double quotes', () => {
    const alphabet = ['"', '"', '"', '(', '[', '{', '<', "'", 's', 'T', 'it', "'s", "n't", "'ll", 'e', '1', '.', '.', ' ', ' ', ' ', ',', ':', ')', ']', '>', '?', ';', '*', '--', '\n', '\t', '...'];
    for (const sentence of generated(alphabet, 40000, 12)) agrees(sentence);
    for (const sentence of ['"Go," she said.', 'He said "hi."', 'Say it. "', '""x', '".', '."', '(" x', '"it\'s" ok', 'x "y" z.\n']) agrees(sentence);
  });
  it('gives the regex passes\' tokens on every sentence of the conformance sets', () => {
    const sentences = conformanceSentences();
    // Most sentences of model responses are plain: the scanner is the path they take.
    expect(sentences.filter((s) => plainTreebankTokens(s) !== undefined).length).toBeGreaterThan(sentences.length / 2);
    for (const sentence of sentences) agrees(sentence);
  });
  it('leaves backticks, doubled apostrophes, non-ASCII and contractions to the passes', () => {
    for (const sentence of ["He said ''no''.", 'Use `x`.', 'Café au lait.', 'I gonna go.', 'We cannot.', "'Tis so."]) {
      expect([sentence, plainTreebankTokens(sentence)]).toEqual([sentence, undefined]);
    }
    expect(plainTreebankTokens('Wait, a,,b: 1,000 -- and ---x... (done.)')).toEqual(
      ['Wait', ',', 'a', ',', ',b', ':', '1,000', '--', 'and', '--', '-x', '...', '(', 'done', '.', ')'],
    );
    expect(plainTreebankTokens("It's the dogs' toys, can't you see 'em?")).toEqual(
      ['It', "'s", 'the', 'dogs', "'", 'toys', ',', 'ca', "n't", 'you', 'see', "'em", '?'],
    );
    expect(plainTreebankTokens('"Go," she said: "now."')).toEqual(['``', 'Go', ',', "''", 'she', 'said', ':', '``', 'now', '.', "''"]);
  });
});

describe('memo scopes', () => {
  it('compute each key once per scope, past the list into the map, and nothing outside a scope', () => {
    const calls: string[] = [];
    const lengthOf = memo((text: string) => {
      calls.push(text);
      return { length: text.length };
    });
    const keys = Array.from({ length: 20 }, (_, i) => 'x'.repeat(i % 10) + String(i));
    const first = withMemo('texts', () => {
      const values = keys.map((k) => lengthOf(k));
      // Equal contents in new strings find the same entries, in the list and in the map.
      expect(keys.map((k) => lengthOf(`${k} `.trim()))).toEqual(values);
      expect(keys.every((k, i) => lengthOf.cached(k) === values[i])).toBe(true);
      return values;
    });
    expect(calls).toEqual(keys);
    expect(first.map((v) => v.length)).toEqual(keys.map((k) => k.length));
    expect(lengthOf.cached(keys[0] as string)).toBeUndefined();
    lengthOf(keys[0] as string);
    expect(calls).toHaveLength(21);
  });
});

describe('character trigrams', () => {
  /** Python's `{s[i:i+3] for i in range(len(s) - 2)}`, by code point, as a Set of strings. */
  const naive = (s: string): Set<string> => {
    const points = Array.from(s);
    return new Set(points.slice(2).map((_, i) => points.slice(i, i + 3).join('')));
  };
  it('counts distinct and shared trigrams as sets of code-point triples do, the scratch table reused', () => {
    const texts = generated(['a', 'b', ' ', '\u{1F600}', 'é', '\n', 'ab'], 1000, 12);
    const reference = 'ab a\u{1F600}b ba é\n';
    const inReference = naive(reference);
    for (const text of [...texts, 'x'.repeat(5000), 'ab']) {
      const mine = naive(text);
      const shared = [...mine].filter((t) => inReference.has(t)).length;
      expect([text, sharedCounts(text, new Trigrams(reference))]).toEqual([text, { distinct: mine.size, shared }]);
    }
  });
});

describe('syllable heuristic', () => {
  it('counts ASCII words in place exactly as over their lowercased letters', () => {
    const words = generated(['a', 'E', 'l', 'L', 'e', 'y', 'b', 'T', 'o', '-', "'", '1'], 4000, 8);
    for (const word of words) expect([word, countSyllables(word)]).toEqual([word, countSyllablesOf(word.toLowerCase().replace(/[^a-z]/g, ''))]);
    expect(['table', 'able', 'ale', 'cake', 'Rhythm', "can't", '', 'é'].map(countSyllables)).toEqual([2, 2, 1, 1, 1, 1, 0, 0]);
  });
});

describe('word tokenizers', () => {
  it('counts words and stop words by memoized lines in loose mode exactly as over the whole text', () => {
    const texts = ['one two\nthree', 'The cat\n\nsat on the mat.\n', "don't\r\ne-mail\u2028me\nαβγ δ", '\n\n'];
    for (const response of texts) {
      const variants = looseVariants(response);
      const whole = variants.map((v) => [countWords(v), countStopwords(v)]);
      expect(withMemo('parts', () => variants.map((v) => [countWords(v), countStopwords(v)]))).toEqual(whole);
    }
  });
  it('NLTK word_tokenize splits clitics, quotes and punctuation as the Treebank rules do', () => {
    expect(wordTokenize("I can't go, \"she said\". Gonna (maybe).")).toEqual([
      'I', 'ca', "n't", 'go', ',', '``', 'she', 'said', "''", '.', 'Gon', 'na', '(', 'maybe', ')', '.',
    ]);
  });
  it('counts \\w+ runs and stop words among them as the regex and a lowercased lookup do', () => {
    const stop = stopwordSet();
    const pieces = ['the', 'THE', 'Is', 'a', 'I', 's', 'o', 'n', 'ourselves', 'at', ' ', '-', "'", '\n', '_', '1', 'é', 'É', '\u212a', 'K', 'İ', 'ſ', 'σ', '\u{1D400}', '\u{1F600}', '\ud800', '\udc00', '\u0301', '٣', 'x'];
    for (const text of generated(pieces, 20000, 10)) {
      const runs = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
      const stopRuns = runs.filter((r) => stop.has(r.toLowerCase())).length;
      expect([text, countWords(text), countStopwords(text)]).toEqual([text, runs.length, stopRuns]);
    }
  });
  it('counts \\w+ runs as the references count words', () => {
    expect(countWords("don't e-mail me")).toBe(5);
    expect(countWords('')).toBe(0);
  });
});

describe('Python string semantics', () => {
  it('split/strip use Python whitespace (no U+200B, but U+3000)', () => {
    expect(pySplit('  a\u3000b\u200bc \n')).toEqual(['a', 'b\u200bc']);
    expect(pyStrip('..x..', '.')).toBe('x');
  });
  it('finds an alphanumeric character as any(c.isalnum() for c in s) does', () => {
    for (const s of generated(['a', 'Z', '5', '.', ' ', '_', "'", 'é', '٣', '\u{1D400}', '\u{1F600}', '\u0301', '\ud800', '-'], 4000, 6)) {
      expect([s, pyHasAlnumChar(s)]).toEqual([s, Array.from(s).some((c) => /^[\p{L}\p{N}]+$/u.test(c))]);
    }
  });
  it('isupper/islower need a cased character', () => {
    expect(pyIsUpper('OK 123')).toBe(true);
    expect(pyIsUpper('123')).toBe(false);
    expect(pyIsLower('ok, fine.')).toBe(true);
    expect(pyIsLower('Ok')).toBe(false);
  });
  it('data regexes keep Python meanings of \\b and \\w', () => {
    expect(pyRegExp('\\bcafé\\b', 'i')?.test('Un CAFÉ noir')).toBe(true);
    expect(pyRegExp('\\bcat\\b', 'i')?.test('cats')).toBe(false);
    expect(pyRegExp('(', '')).toBeNull();
  });
});

describe('csv.reader', () => {
  it.each([
    ['a,b\n\nc', [['a', 'b'], [], ['c']]],
    ['a\n', [['a']]],
    [',\n', [['', '']]],
    ['"ab"c,d', [['abc', 'd']]],
    ['x"y",z', [['x"y"', 'z']]],
    ['"abc', [['abc']]],
    ['a,"b\nc",d\ne', [['a', 'b\nc', 'd'], ['e']]],
  ])('reads %j as Python does', (text, rows) => {
    expect(parseCsv(text)).toEqual(rows);
  });
});

describe('language identification', () => {
  it.each([
    ['The committee will meet on Monday to discuss the budget and the new plan.', 'en'],
    ['Der Ausschuss trifft sich am Montag, um den Haushalt und den neuen Plan zu besprechen.', 'de'],
    ['Решетка - это что-то вроде сетки, которую можно нарисовать на бумаге.', 'ru'],
    ['Бронкос толкова се провалиха тази година, че върху витрината се събира прах.', 'bg'],
    ['یودا، مرد کوچک سبز، در جهانی دیگر با قدرتی بیکران', 'fa'],
    ['तुम्ही कसे आहात? मी ठीक आहे आणि तुम्ही?', 'mr'],
    ['제방과 방조제의 차이점은 무엇일까요?', 'ko'],
  ])('%s → %s', (text, code) => {
    expect(detectLanguage(text)).toBe(code);
  });
  it('has no answer without letters and no winner for a bare name list', () => {
    expect(detectLanguage('12345 !!!')).toBeNull();
    expect(detectLanguage('ABIGAIL SMITH\nBENJAMIN JONES')).toBe('unknown');
  });
});
