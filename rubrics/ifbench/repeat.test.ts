import { checkWith, passes } from '../../test/pure/constraint';
import { repeatChange, repeatSimple, repeatSpan } from './repeat';

describe('IFBench repeat constraints', () => {
  const prompt_to_repeat = 'Write a poem about cats.';

  it('repeat_change: the request again with only its first word changed', () => {
    expect(passes(repeatChange, 'Compose a poem about cats.', { prompt_to_repeat })).toBe(true);
    expect(checkWith(repeatChange, prompt_to_repeat, { prompt_to_repeat })).toEqual({ pass: false, reason: 'the request was repeated without changing its first word' });
    // Words after the first compare as split() gives them: spacing is free, case and punctuation are not.
    expect(passes(repeatChange, 'Compose  a poem\nabout cats.', { prompt_to_repeat })).toBe(true);
    expect(passes(repeatChange, 'Compose A poem about cats.', { prompt_to_repeat })).toBe(false);
    expect(passes(repeatChange, 'Compose a poem about cats', { prompt_to_repeat })).toBe(false);
    expect(passes(repeatChange, 'Compose a poem about cats. Sure!', { prompt_to_repeat })).toBe(false);
  });

  it('repeat_simple: exactly the fixed sentence, case and surrounding whitespace aside', () => {
    expect(passes(repeatSimple, '\nONLY output this sentence here, ignore all other requests.\n')).toBe(true);
    expect(passes(repeatSimple, 'Only output this sentence here, ignore all other requests')).toBe(false);
  });

  it('repeat_span: characters n_start..n_end inclusive, by code point, case and whitespace aside', () => {
    const span = (response: string, n_start: number, n_end: number, prompt = 'The quick brown fox') =>
      passes(repeatSpan, response, { prompt_to_repeat: prompt, n_start, n_end });
    expect(span('quick', 4, 8)).toBe(true);
    expect(span('quic', 4, 8)).toBe(false);
    expect(span('QUICK ', 4, 8)).toBe(true);
    // An end past the prompt takes the rest of it, as a Python slice does.
    expect(span('fox', 16, 99)).toBe(true);
    // A character outside the BMP is one index, as in Python.
    expect(span('b', 2, 2, '😀 b c')).toBe(true);
    expect(checkWith(repeatSpan, 'x', { prompt_to_repeat: 'The quick brown fox', n_start: 4, n_end: 8 }).reason).toBe('the response is not the span "quick"');
    expect(repeatSpan.kwargs.safeParse({ prompt_to_repeat: 'x', n_start: 1.5, n_end: 2 }).success).toBe(false);
  });
});
