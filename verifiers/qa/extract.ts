import { isEmptyBox, lastBoxed } from '../../core/text';

export interface Extracted {
  text: string;
  /** Which rule found it: "boxed", "answer_is" or "answer_colon". */
  rule: string;
}

// "The answer is X", "the final answer is: X", "the correct answer is (C)".
const ANSWER_IS = /\bthe\s+(?:(?:final|correct|best)\s+)?answer\s+is\s*(?:[:：]\s*)?([^\n]+)/gi;
// "Answer: X", "**Final Answer:** X", "Answer：X".
const ANSWER_COLON = /\b(?:final\s+)?answer\s*(?:\*\*\s*)?[:：]\s*(?:\*\*\s*)?([^\n]+)/gi;

function lastMatch(pattern: RegExp, text: string): { index: number; value: string } | null {
  let last: { index: number; value: string } | null = null;
  for (const m of text.matchAll(pattern)) {
    const value = m[1]?.trim();
    if (value) last = { index: m.index, value };
  }
  return last;
}

/**
 * The answer stated in the final text: the last `\boxed{}`, else the last "the answer is …" or
 * "Answer: …" line (whichever comes later in the text), or null when the response states none.
 */
export function extractAnswer(text: string): Extracted | null {
  const boxed = lastBoxed(text);
  if (boxed !== null) return isEmptyBox(boxed) ? null : { text: boxed.trim(), rule: 'boxed' };
  const answerIs = lastMatch(ANSWER_IS, text);
  const answerColon = lastMatch(ANSWER_COLON, text);
  const chosen =
    answerIs && answerColon
      ? answerIs.index >= answerColon.index
        ? { ...answerIs, rule: 'answer_is' }
        : { ...answerColon, rule: 'answer_colon' }
      : answerIs
        ? { ...answerIs, rule: 'answer_is' }
        : answerColon
          ? { ...answerColon, rule: 'answer_colon' }
          : null;
  if (!chosen) return null;
  const value = chosen.value.replace(/\*\*/g, '').replace(/[.。]\s*$/, '').trim();
  return value === '' ? null : { text: value, rule: chosen.rule };
}
