import { z } from 'zod';
import { checkAgainst, fieldPath, jsonSchemaText, numberText, textOrNumber } from './label';

describe('fieldPath', () => {
  it('writes keys with dots and indices with brackets, under a root or none', () => {
    expect(fieldPath('label', ['answers', 0, 'text'])).toBe('label.answers[0].text');
    expect(fieldPath('', ['answers', 0, 'text'])).toBe('answers[0].text');
    expect(fieldPath('label', [])).toBe('label');
  });
});

describe('checkAgainst', () => {
  const schema = z.strictObject({
    answers: z.array(z.string()),
    rubric: z.discriminatedUnion('kind', [z.object({ kind: z.literal('exact') }), z.object({ kind: z.literal('judge'), prompt: z.string() })]),
  });
  const good = { answers: ['a'], rubric: { kind: 'exact' } };

  it('returns the parsed value when the label fits', () => {
    expect(checkAgainst(schema, good)).toEqual({ ok: true, value: good });
  });

  it('names the first failing field by its path from the root', () => {
    expect(checkAgainst(schema, { ...good, answers: ['a', 3] })).toEqual({ ok: false, error: 'label.answers[1]: expected string, received number' });
    expect(checkAgainst(schema, { ...good, answers: 'a' }, 'row')).toMatchObject({ ok: false, error: expect.stringMatching(/^row\.answers: expected array/) });
  });

  it('names each unknown field of a strict object', () => {
    expect(checkAgainst(schema, { ...good, extra: 1, more: 2 })).toEqual({ ok: false, error: 'label.extra: unknown field; label.more: unknown field' });
  });

  it('names the choices of a discriminated union, and the value given when there is one', () => {
    expect(checkAgainst(schema, { ...good, rubric: {} })).toEqual({ ok: false, error: 'label.rubric.kind: required: "exact" or "judge"' });
    expect(checkAgainst(schema, { ...good, rubric: { kind: 'fuzzy' } })).toEqual({ ok: false, error: 'label.rubric.kind: expected "exact" or "judge", received "fuzzy"' });
  });
});

describe('numberText', () => {
  it('reads a number as the text a dataset author would have written', () => {
    expect(numberText(42)).toBe('42');
    expect(numberText(-0.5)).toBe('-0.5');
    expect(numberText(Number.MAX_SAFE_INTEGER)).toBe('9007199254740991');
  });

  it('refuses a number whose text is ambiguous: an exponent, an integer past 2^53, not finite', () => {
    expect(numberText(1e21)).toBeNull();
    expect(numberText(1e-7)).toBeNull();
    expect(numberText(2 ** 53 + 2)).toBeNull();
    expect(numberText(Number.NaN)).toBeNull();
    expect(numberText(Number.POSITIVE_INFINITY)).toBeNull();
  });
});

describe('textOrNumber', () => {
  const schema = z.object({ answer: textOrNumber(() => 'expected a string or a number') });

  it('keeps a string and reads a number as its text', () => {
    expect(checkAgainst(schema, { answer: 'x' })).toEqual({ ok: true, value: { answer: 'x' } });
    expect(checkAgainst(schema, { answer: 42 })).toEqual({ ok: true, value: { answer: '42' } });
  });

  it('asks for a string where the number has no unambiguous text, and gives its own message otherwise', () => {
    expect(checkAgainst(schema, { answer: 1e21 })).toEqual({ ok: false, error: 'label.answer: expected a string: the number 1e+21 has no unambiguous text' });
    expect(checkAgainst(schema, { answer: true })).toEqual({ ok: false, error: 'label.answer: expected a string or a number' });
  });
});

describe('jsonSchemaText', () => {
  it('publishes the input shape of a label schema as JSON Schema', () => {
    const published = JSON.parse(jsonSchemaText(z.strictObject({ word: z.string().min(1), n: z.number().optional() }))) as Record<string, unknown>;
    expect(published).toMatchObject({ type: 'object', required: ['word'], properties: { word: { type: 'string', minLength: 1 }, n: { type: 'number' } }, additionalProperties: false });
  });
});
