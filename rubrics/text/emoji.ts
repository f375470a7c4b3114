/**
 * `emoji.is_emoji(ch)` for one character: pictographs (with the unqualified forms such as "©" and
 * "❤" that the emoji package also lists) and skin-tone modifiers; digits, "#" and "*" are only
 * emoji as keycap sequences, never alone.
 */
const EMOJI_CHAR = /^[\p{Extended_Pictographic}\p{Emoji_Modifier}]$/u;

export function isEmojiChar(ch: string): boolean {
  return EMOJI_CHAR.test(ch);
}
