import type { Constraint } from './constraint';
import { evaluate, looseVariants } from './evaluate';
import { CONSTRAINTS, constraintById } from './registry';
import { PERSON_NAMES } from './ifbench/count';
import { PUNCT_AND_SPACE, PY_B, pyIsAlpha, pyIsLower, pyIsUpper, pySplit, pyStrip, removePunctuation } from './text/py';
import { wordTokenize } from './text/words';
import { generated } from '../test/pure/generated';

const cases = CONSTRAINTS.flatMap((c: Constraint) => c.examples.map((example, i) => ({ id: c.id, i, example, constraint: c })));

describe('constraint registry', () => {
  it('has the 25 IFEval and 58 IFBench instruction types, once each', () => {
    expect(CONSTRAINTS.filter((c) => c.source === 'ifeval')).toHaveLength(25);
    expect(CONSTRAINTS.filter((c) => c.source === 'ifbench')).toHaveLength(58);
    expect(new Set(CONSTRAINTS.map((c) => c.id)).size).toBe(83);
    expect(constraintById('length_constraints:number_words')?.source).toBe('ifeval');
    expect(constraintById('no:such_id')).toBeUndefined();
  });

  it.each(CONSTRAINTS.map((c) => [c.id, c] as const))('%s has a passing and a failing example', (_id, c) => {
    expect(c.examples.some((e) => e.pass)).toBe(true);
    expect(c.examples.some((e) => !e.pass)).toBe(true);
  });
});

describe('constraint examples (strict)', () => {
  it.each(cases.map((c) => [`${c.id} #${c.i} ${c.example.pass ? 'passes' : 'fails'}`, c] as const))('%s', (_name, { constraint, example }) => {
    const kwargs = constraint.kwargs.parse(example.kwargs ?? {});
    const v = evaluate(constraint, example.response, kwargs, 'strict');
    expect(v.pass).toBe(example.pass);
    // A failure always says what to fix; a pass says nothing.
    if (v.pass) expect(v.reason).toBe('');
    else expect(v.reason.length).toBeGreaterThan(5);
  });
});

describe('failure reasons a person can act on', () => {
  const check = (id: string, response: string, kwargs: object) => {
    const c = constraintById(id) as Constraint;
    return evaluate(c, response, c.kwargs.parse(kwargs), 'strict');
  };
  it('counts what it found and says what was expected', () => {
    expect(check('length_constraints:number_paragraphs', 'a\n***\nb\n***\nc\n***\nd', { num_paragraphs: 3 }).reason).toBe(
      'found 4 paragraphs separated by ***, expected 3',
    );
    expect(check('length_constraints:number_words', 'one two', { num_words: 5, relation: 'at least' }).reason).toBe('found 2 words, expected at least 5');
    expect(check('keywords:forbidden_words', 'I like dogs and cats.', { forbidden_words: ['cats', 'dogs'] }).reason).toBe('uses forbidden word "cats"');
    expect(check('punctuation:no_comma', 'a, b, c', {}).reason).toBe('found 2 commas');
  });
});

describe('kwargs', () => {
  const parse = (id: string, kwargs: object) => (constraintById(id) as Constraint).kwargs.safeParse(kwargs);
  it('requires a kwarg the reference would draw at random when missing', () => {
    const r = parse('length_constraints:number_words', { relation: 'at least' });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]).toMatchObject({ path: ['num_words'], message: 'required' });
    expect(parse('keywords:letter_frequency', { letter: 'ab', let_frequency: 2, let_relation: 'at least' }).success).toBe(false);
    expect(parse('length_constraints:nth_paragraph_first_word', { num_paragraphs: 2, nth_paragraph: 3, first_word: 'x' }).success).toBe(false);
  });
  it('rejects a misspelt kwarg and an unknown relation', () => {
    expect(parse('count:numbers', { n: 3 }).success).toBe(false);
    expect(parse('keywords:frequency', { keyword: 'a', frequency: 2, relation: 'at most' }).success).toBe(false);
  });
  it('accepts IFBench floats such as N: 128.0 (JSON 128) and fractional counts', () => {
    expect(parse('count:unique_word_count', { N: 128 }).success).toBe(true);
    expect(parse('ratio:stop_words', { percentage: 27.5 }).success).toBe(true);
  });
});

describe('loose mode', () => {
  it('tries the eight reference variants: first/last line dropped, "*" removed', () => {
    const v = looseVariants('Sure!\n**Body**\nBye');
    expect(v).toEqual(['Sure!\n**Body**\nBye', 'Sure!\nBody\nBye', '**Body**\nBye', 'Sure!\n**Body**', '**Body**', 'Body\nBye', 'Sure!\nBody', 'Body']);
  });
  it('forgives a violation in the first line that strict does not', () => {
    const c = constraintById('punctuation:no_comma') as Constraint;
    expect(evaluate(c, 'Sure, here it is:\nNo commas in this part.', {}, 'strict').pass).toBe(false);
    expect(evaluate(c, 'Sure, here it is:\nNo commas in this part.', {}, 'loose').pass).toBe(true);
  });
  it('fails every instruction on an empty response', () => {
    const c = constraintById('detectable_format:number_bullet_lists') as Constraint;
    expect(evaluate(c, '  \n ', { num_bullets: 0 }, 'strict')).toEqual({ pass: false, reason: 'the response is empty' });
    expect(evaluate(c, '  \n ', { num_bullets: 0 }, 'loose').pass).toBe(false);
  });
});

/**
 * Checkers with a fast path, against the reference's code written out plainly, on generated
 * responses full of the cases the fast paths single out: ASCII and not, cased and uncased
 * letters, astral characters, punctuation and Python's whitespace.
 */
describe('checker fast paths agree with the reference code', () => {
  const verdictOf = (id: string, response: string, kwargs: object = {}) => {
    const c = constraintById(id) as Constraint;
    return c.check(response, c.kwargs.parse(kwargs));
  };
  const pieces = ['a', 'b', 'A', 'Z', 'é', 'É', 'ǅ', 'ß', 'σ', 'Σ', '\u{1D400}', '\u{1D41A}', '1', '_', 'ª', '\u0345', 'İ', 'K', 'ﬁ', '.', ',', "'", '"', '-', '!', '?', ' ', ' ', '\n', '\u00a0', '\u3000', '\t', '*', '(', ')', 'the', 'The', 'it', 'and'];
  const responses = generated(pieces, 4000, 16);

  it('format:title_case', () => {
    const reference = (response: string): boolean => {
      for (const word of wordTokenize(response)) {
        const chars = Array.from(word);
        const head = chars[0];
        if (head === undefined || !pyIsAlpha(head)) continue;
        const tail = chars.slice(1).join('');
        if (chars.length === 1) {
          if (pyIsLower(head)) return false;
          continue;
        }
        if (pyIsUpper(head) && pyIsLower(tail)) continue;
        if (pyIsLower(head) && (pyIsUpper(tail) || pyIsLower(tail))) return false;
      }
      return true;
    };
    for (const response of responses) expect([response, verdictOf('format:title_case', response).pass]).toEqual([response, reference(response)]);
  });

  it('words:alphabet', () => {
    const reference = (response: string) => {
      const alphabet = 'abcdefghijklmnopqrstuvwxyz';
      const words = pySplit(pyStrip(removePunctuation(response), PUNCT_AND_SPACE));
      if (words.length === 0) return { pass: false, reason: 'the response has no words' };
      let letter = (Array.from(words[0] as string)[0] as string).toLowerCase();
      if (!alphabet.includes(letter) || letter.length !== 1) return { pass: false, reason: 'the first word does not start with a letter a-z' };
      for (const raw of words.slice(1)) {
        const word = pyStrip(raw, PUNCT_AND_SPACE).toLowerCase();
        if (word === '') continue;
        letter = alphabet[(alphabet.indexOf(letter) + 1) % 26] as string;
        if (Array.from(word)[0] !== letter) return { pass: false, reason: `"${raw}" should start with "${letter}"` };
      }
      return { pass: true, reason: '' };
    };
    const words = ['apple', 'Bear', 'cat', 'dog', 'Eel', 'z', 'Zoo', 'İb', '\u{1D400}', '.', '!a', 'b-c', 'x', 'y', 'Ab'];
    for (const response of generated([...words, ' ', ' ', '\n', '\u3000', '!'], 6000, 8)) {
      expect([response, verdictOf('words:alphabet', response)]).toEqual([response, reference(response)]);
    }
    expect(verdictOf('words:alphabet', 'Apples bake crisply, delighting everyone. Zebras')).toEqual(reference('Apples bake crisply, delighting everyone. Zebras'));
  });
  it('words:repeats', () => {
    const reference = (response: string, smallN: number) => {
      const counts = new Map<string, number>();
      for (const w of pySplit(removePunctuation(response.toLowerCase()))) counts.set(w, (counts.get(w) ?? 0) + 1);
      for (const [word, n] of counts) if (n > smallN) return { pass: false, reason: `"${word}" is repeated ${n} times, expected at most ${smallN}` };
      return { pass: true, reason: '' };
    };
    for (const response of generated(['the', 'The', 'THE', 'a', 'A', 'é', 'É', '\u{1F600}', 'ab', 'ba', '.', '!', ' ', ' ', ' ', '\n', '\u3000', '\u00a0', 'İ', 'i̇'], 6000, 14)) {
      for (const smallN of [0, 1, 2, 2.5]) expect([response, smallN, verdictOf('words:repeats', response, { small_n: smallN })]).toEqual([response, smallN, reference(response, smallN)]);
    }
  });
  it('words:vowel', () => {
    for (const response of generated(['a', 'E', 'i', 'O', 'u', 'x', 'é', 'İ', '\u{1F600}', ' ', 'ya', '\n'], 4000, 10)) {
      const paragraphs = pyStrip(response).split('\n');
      const used = new Set([...(paragraphs[0] as string).toLowerCase()].filter((c) => 'aeiou'.includes(c)));
      const expected =
        paragraphs.length !== 1
          ? { pass: false, reason: `found ${paragraphs.length} lines, expected a single paragraph` }
          : { pass: used.size <= 3, reason: used.size <= 3 ? '' : `uses ${used.size} different vowels (${[...used].sort().join(', ')}), expected at most 3` };
      expect([response, verdictOf('words:vowel', response)]).toEqual([response, expected]);
    }
  });
  it('words:palindrome', () => {
    const words = ['level', 'Level', 'Racecar', 'abcba', 'abba', 'ab\u{1F600}ba', '\u{1F600}a\u{1F600}a\u{1F600}', 'ab,ba', 'a.b.c.b.a', 'éabaé', 'abcde', 'aaaa', 'aaaaa', '\u{1F600}\u{1F600}\u{1F600}', 'xyzzyx'];
    for (const response of generated([...words, ' ', '\n', '\u3000', ' ', '!', 'x', 'é', '\u{1F600}'], 3000, 24)) {
      const lowered = removePunctuation(response).toLowerCase();
      const n = pySplit(lowered).filter((w) => Array.from(w).length >= 5 && Array.from(w).reverse().join('') === w).length;
      const reason = `found ${n} palindrome${n === 1 ? '' : 's'} of 5+ letters, expected at least 10`;
      expect([response, verdictOf('words:palindrome', response)]).toEqual([response, { pass: n >= 10, reason: n >= 10 ? '' : reason }]);
    }
  });
  it('count:unique_word_count', () => {
    for (const response of [...responses, ...generated(['the', 'The', 'THE', '"the"', 'a', '!', '!!', ' ', '\n', '\u3000', '.', 'é', '\u{1F600}', "'", 'b', 'ab', 'ba'], 4000, 12)]) {
      const n = new Set(pySplit(response.toLowerCase()).map((w) => pyStrip(w, PUNCT_AND_SPACE))).size;
      for (const N of [n, n + 1]) {
        const reason = `found ${n} unique word${n === 1 ? '' : 's'}, expected at least ${N}`;
        expect([response, verdictOf('count:unique_word_count', response, { N })]).toEqual([response, { pass: n >= N, reason: n >= N ? '' : reason }]);
      }
    }
  });
  it('count:person_names', () => {
    const names = [...PERSON_NAMES];
    const patterns = names.map((name) => new RegExp(`${PY_B}${name}${PY_B}`, 'u'));
    const namePieces = ['Emma', 'Liam', 'Noah', 'Ava', 'Mia', 'EMMA', 'emma', 'Em', 'ma', 'Emmanuel', 'Ma', 'son'];
    for (const response of [...responses, ...generated([...pieces, ...namePieces, ...namePieces], 4000, 8)]) {
      const n = patterns.filter((re) => re.test(response)).length;
      for (const N of [1, 2, 3]) {
        const reason = `mentions ${n} different name${n === 1 ? '' : 's'} from the list, expected at least ${N}`;
        expect([response, N, verdictOf('count:person_names', response, { N })]).toEqual([response, N, { pass: n >= N, reason: n >= N ? '' : reason }]);
      }
    }
  });
});
