import { z } from 'zod';
import { ok } from '../../../core/sample';
import { definePure } from '../../../core/verifier';

/**
 * What a newcomer writes to add a pure verifier: this folder (its definition, with its example, and
 * its cases.jsonl) and one line in a registry. test/newcomer/newcomer.test.ts checks that it then
 * shows on every surface with no other edit.
 */
export const tiny = definePure({
  name: 'tiny',
  version: '1.0.0',
  description: 'test verifier: 1 when the response says label.word, else 0',
  label: z.strictObject({ word: z.string().min(1) }),
  example: { label: { word: 'hello' }, response: 'hello, world', reward: 1 },
  score({ response, label }) {
    return response.includes(label.word) ? ok(1, 'said') : ok(0, 'not_said');
  },
});
