import { evaluate } from '../../rubrics/evaluate';
import { withoutBlankLinesAsReference } from '../../rubrics/ifbench/format';
import { CONSTRAINTS, constraintById } from '../../rubrics/registry';
import { pyStrip } from '../../rubrics/text/py';
import { scoreIf } from './helpers';

/*
 * Model output must never turn a 0 into ABORTED: every constraint, on responses at the size limit
 * (4 Mi characters) in shapes that stress different machinery (sentences, paragraphs, CJK and
 * emoji, brackets without line breaks, one endless line of punctuation), scores OK. A spread of an
 * input-sized array into a call (`push(...tokens)`) overflows the stack from about 1 MB; a regex or
 * list edit that rescans the text per match makes a sample hold its worker for minutes.
 */

const LIMIT = 4 * 1024 * 1024;
const fill = (unit: string, size = LIMIT): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/** Every constraint with the kwargs of its first example. */
const rubrics = CONSTRAINTS.map((c) => ({ kind: 'constraint', id: c.id, kwargs: c.examples[0]?.kwargs ?? {} }));

describe('if: every constraint on responses at the size limit', () => {
  // Each constraint is its own sample, as in a dataset row: with all of them in one label, the
  // text analyses one computes are reused by the next, and a path taken alone would go untested.
  it.each([
    ['one sentence of words', fill('word '), 'strict'],
    ['paragraphs', fill('Para one here.\n\n'), 'strict'],
    ['CJK and emoji', fill('漢字かな😀 ').slice(0, LIMIT - 1), 'strict'],
    ['brackets on one line', fill('{"a": [1, 2, {"b": "c"}]}, '), 'strict'],
    // Loose mode checks the response itself among its variants.
    ['sentences, loose', fill('The cat sat on the mat. '), 'loose'],
    ['one line of punctuation', fill('!?.,;:([', LIMIT / 4), 'strict'],
  ] as const)('%s: OK for every constraint', async (_shape, response, mode) => {
    const notOk: string[] = [];
    for (const rubric of rubrics) {
      const outcome = await scoreIf(response, { mode, rubrics: [rubric] });
      if (outcome.status !== 'OK') notOk.push(`${rubric.id}: ${outcome.status} ${outcome.reason}`);
    }
    expect(notOk).toEqual([]);
    // ~10 s of CPU each on a quiet machine: a generous limit, so a loaded CI machine does not fail it.
  }, 600_000);
});

describe('linear replays of the reference, checked against the quadratic originals', () => {
  /** Deterministic pseudo-random texts over a small alphabet, so equal lines and brackets recur. */
  function* texts(alphabet: string, count: number): Generator<string> {
    let x = 12345;
    for (let n = 0; n < count; n++) {
      let s = '';
      const len = n % 40;
      for (let i = 0; i < len; i++) {
        x = (x * 1103515245 + 12345) % 2147483648;
        s += alphabet[x % alphabet.length];
      }
      yield s;
    }
  }

  it('blank-line removal while iterating, as `for line in lines: lines.remove(line)` does', () => {
    const replay = (lines: string[]): string[] => {
      const out = [...lines];
      for (let i = 0; i < out.length; i++) {
        const line = out[i] as string;
        if (pyStrip(line) === '') out.splice(out.indexOf(line), 1);
      }
      return out;
    };
    for (const text of texts('a \n\n \t', 3000)) {
      const lines = text.split('\n');
      expect(withoutBlankLinesAsReference(lines)).toEqual(replay(lines));
    }
  });

  it('placeholders: `re.findall(r"\\[.*?\\]")` counted in one scan', () => {
    const placeholders = constraintById('detectable_content:number_placeholders');
    if (!placeholders) throw new Error('missing constraint');
    for (const text of texts('[]a\n', 3000)) {
      if (text.trim() === '') continue; // an empty response fails every constraint
      const expected = text.match(/\[[^\n]*?\]/gu)?.length ?? 0;
      const atLeast = evaluate(placeholders, text, placeholders.kwargs.parse({ num_placeholders: expected }), 'strict');
      const oneMore = evaluate(placeholders, text, placeholders.kwargs.parse({ num_placeholders: expected + 1 }), 'strict');
      expect([atLeast.pass, oneMore.pass]).toEqual([true, false]);
    }
  });
});
