import type { Json } from '../../core/json';
import type { Constraint } from '../../rubrics/constraint';
import { evaluate, type Mode } from '../../rubrics/evaluate';
import { constraintById } from '../../rubrics/registry';
import { checkConstraints, toVerdicts, type ConstraintsPayload } from './constraints';

const run = (payload: ConstraintsPayload) => checkConstraints(payload as unknown as Json);

const rubrics: ConstraintsPayload['rubrics'] = [
  { id: 'punctuation:no_comma', kwargs: {} },
  { id: 'length_constraints:number_words', kwargs: { num_words: 4, relation: 'at least' } },
  { id: 'change_case:english_lowercase', kwargs: {} },
  { id: 'detectable_format:number_bullet_lists', kwargs: { num_bullets: 2 } },
];

describe('the constraints pool task', () => {
  it('answers one verdict per rubric, in the label order, each with its reason', () => {
    expect(run({ text: 'one two, three', mode: 'strict', rubrics: rubrics.slice(0, 3) })).toEqual([
      { pass: false, reason: 'found 1 comma' },
      { pass: false, reason: 'found 3 words, expected at least 4' },
      { pass: true, reason: '' },
    ]);
  });

  it('gives each rubric the verdict it has alone, in both modes: the shared memo changes no answer', () => {
    const texts = ['Sure, here it is:\n* one item\n* two items\nthat is all', 'all lower case words here', '**Bold**, start\n* a\n* b\n* c', ''];
    for (const mode of ['strict', 'loose'] as Mode[]) {
      for (const text of texts) {
        const alone = rubrics.map(({ id, kwargs }) => {
          const c = constraintById(id) as Constraint;
          const v = evaluate(c, text, c.kwargs.parse(kwargs), mode);
          return { pass: v.pass, reason: v.reason };
        });
        expect(run({ text, mode, rubrics })).toEqual(alone);
      }
    }
  });

  it('applies loose mode: a first line with a comma is forgiven', () => {
    const payload = (mode: Mode): ConstraintsPayload => ({ text: 'Sure, here:\nno commas below', mode, rubrics: [rubrics[0]!] });
    expect(run(payload('strict'))).toEqual([{ pass: false, reason: 'found 1 comma' }]);
    expect(run(payload('loose'))).toEqual([{ pass: true, reason: '' }]);
  });

  it('parses kwargs as the label did (defaults applied), and throws on an id the label should have refused', () => {
    expect(() => run({ text: 'x', mode: 'strict', rubrics: [{ id: 'no:such_id', kwargs: {} }] })).toThrow('unknown instruction id "no:such_id"');
    expect(() => run({ text: 'x', mode: 'strict', rubrics: [{ id: 'length_constraints:number_words', kwargs: {} }] })).toThrow();
  });

  it('reads a result back only when it has one well-formed verdict per rubric', () => {
    const good = [
      { pass: true, reason: '' },
      { pass: false, reason: 'found 1 comma' },
    ];
    expect(toVerdicts(good, 2)).toEqual(good);
    expect(() => toVerdicts(good, 3)).toThrow('constraints task: malformed result');
    expect(() => toVerdicts({ 0: good[0] } as unknown as Json, 1)).toThrow('constraints task: malformed result');
    expect(() => toVerdicts([{ pass: 'yes', reason: '' }], 1)).toThrow('constraints task: malformed verdict');
    expect(() => toVerdicts([{ pass: true }], 1)).toThrow('constraints task: malformed verdict');
    expect(() => toVerdicts([null], 1)).toThrow('constraints task: malformed verdict');
  });

  it('round-trips through JSON, as a result from a worker thread does', () => {
    const result = run({ text: 'a, b', mode: 'strict', rubrics: rubrics.slice(0, 2) });
    expect(toVerdicts(JSON.parse(JSON.stringify(result)) as Json, 2)).toEqual(result);
  });
});
