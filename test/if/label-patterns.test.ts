import { labelPattern, MAX_PATTERN } from '../../rubrics/text/label-pattern';
import { scoreIf } from './helpers';

/*
 * Patterns in labels are input: they run on a linear-time automaton (or as literals), so no label
 * can hold a worker thread, and the reference's regex semantics hold for what dataset rows use.
 */

const evil = 'a'.repeat(40) + '!';

describe('label patterns cannot backtrack catastrophically', () => {
  // Each of these takes a backtracking engine longer than the age of the universe on its text.
  it.each([
    ['keywords:existence', { keywords: ['(a+)+$'] }, 0],
    ['keywords:frequency', { keyword: '(a|aa)+$', frequency: 1, relation: 'at least' }, 0],
    ['keywords:forbidden_words', { forbidden_words: ['(a*)*b'] }, 1],
    ['detectable_content:postscript', { postscript_marker: '(a+)+b' }, 0],
    ['detectable_format:multiple_sections', { section_spliter: '(a|a)+c', num_sections: 1 }, 0],
  ])('%s on 40 a and a "!": answered', async (id, kwargs, reward) => {
    expect(await scoreIf(evil, { rubrics: [{ kind: 'constraint', id, kwargs }] })).toMatchObject({ status: 'OK', reward });
  });

  it('on a 4 Mi-character response too', async () => {
    const rubrics = [{ kind: 'constraint', id: 'keywords:existence', kwargs: { keywords: ['(a+)+$', '(x+x+)+y'] } }];
    expect(await scoreIf('a'.repeat(4 * 1024 * 1024 - 1) + '!', { rubrics })).toMatchObject({ status: 'OK', reward: 0 });
  });
});

describe('label patterns keep the reference regex semantics', () => {
  it.each([
    ['colou?r', 'My favourite COLOR.', true],
    ['colou?r', 'My favourite colr.', false],
    ['\\w+ing\\b', 'Just walking.', true],
    ['caf\\w', 'Un CAFÉ noir.', true],
    ['\\d{3}-\\d{4}', 'Call 555-0123 now', true],
    ['[àé]t\\S', 'un été chaud', true],
    ['a.b', 'a\nb', false],
    ['cat', 'Concatenate', true],
  ])('keywords:existence %j in %j → %s', async (keyword, response, pass) => {
    const outcome = await scoreIf(response, { rubrics: [{ kind: 'constraint', id: 'keywords:existence', kwargs: { keywords: [keyword] } }] });
    expect(outcome).toMatchObject({ status: 'OK', reward: pass ? 1 : 0 });
  });

  it('counts matches as re.findall does', () => {
    const p = labelPattern('b[aeiou]', { ignoreCase: true });
    if (typeof p === 'string') throw new Error(p);
    expect(p.count('Ba be bi bx BO')).toBe(4);
  });
});

describe('patterns the automaton cannot run are refused with the label, naming the field', () => {
  it.each([
    [{ keywords: ['(a)\\1'] }, /^label\.rubrics\[0\]\.kwargs\.keywords\[0\]: not a regular expression the linear-time matcher runs .*backreferences and lookaround/],
    [{ keywords: ['(?<=a)b'] }, /^label\.rubrics\[0\]\.kwargs\.keywords\[0\]: not a regular expression the linear-time matcher runs/],
    [{ keywords: ['x', `(${'a'.repeat(MAX_PATTERN)})`] }, new RegExp(`^label\\.rubrics\\[0\\]\\.kwargs\\.keywords\\[1\\]: a regular expression longer than ${MAX_PATTERN} characters`)],
  ])('%j', async (kwargs, reason) => {
    const outcome = await scoreIf('x', { rubrics: [{ kind: 'constraint', id: 'keywords:existence', kwargs }] });
    expect(outcome.status).toBe('INVALID');
    expect(outcome.reason).toMatch(reason);
  });

  it('a long literal keyword is fine: literals never backtrack', async () => {
    const keyword = 'word '.repeat(100).trim();
    const outcome = await scoreIf(`${keyword}.`, { rubrics: [{ kind: 'constraint', id: 'keywords:existence', kwargs: { keywords: [keyword] } }] });
    expect(outcome).toMatchObject({ status: 'OK', reward: 1 });
  });
});
