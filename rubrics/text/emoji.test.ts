import { isEmojiChar } from './emoji';

describe('isEmojiChar (emoji.is_emoji of one character)', () => {
  it('accepts pictographs, including the unqualified ones the emoji package lists, and skin tones', () => {
    for (const ch of ['😀', '🚀', '❤', '©', '®', '™', '☀', '\u{1F3FB}']) expect([ch, isEmojiChar(ch)]).toEqual([ch, true]);
  });

  it('refuses digits, # and * alone (emoji only as keycaps), letters, punctuation and sequences', () => {
    for (const ch of ['1', '#', '*', 'a', '!', ' ', '', '😀😀', '1\uFE0F\u20E3', '\uFE0F']) expect([ch, isEmojiChar(ch)]).toEqual([ch, false]);
  });
});
