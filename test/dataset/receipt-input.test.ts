import { canonicalJson, inputJson } from '../../cli/receipt';
import type { Sample } from '../../core/sample';
import { sample } from '../fixtures/samples';

/**
 * A receipt's input hash is of the sample less its id in canonical JSON; `inputJson` writes that text
 * field by field. It must stay the very text the generic writer gives, or the receipts of a resumed
 * or compared run would differ from the first run's for the same input.
 */
describe('the receipt input text', () => {
  const cases: Sample[] = [
    sample({ id: 'a', verifier: 'qa', response: '\\boxed{42}', label: { answers: ['42'], choice: 'B' } }),
    sample({ id: 'b', verifier: 'math', response: 'é€😀 "quoted" \\ \n', label: { z: 1, a: { y: [3, { c: null, b: true }] } }, groupId: 'g', responseTokens: 17 }),
    sample({ id: 'c', verifier: 'if', response: '', label: {}, metadata: { finish_reason: 'length', nested: { b: 2, a: 1 } } }),
  ];

  it('is canonicalJson of the sample without its id', () => {
    for (const s of cases) {
      const { id: _id, ...input } = s;
      expect(inputJson(s)).toBe(canonicalJson(input));
    }
  });
});
