import { z } from 'zod';
import { checkAgainst } from '../../core/label';

export type ParsedReply = { ok: true; json: unknown } | { ok: false; message: string };

/**
 * The part of a chat completion the judge reads. `reasoning` / `reasoning_content` (a thinking
 * model's split-off chain of thought) are deliberately not read: only `content` carries the verdict.
 */
const completionShape = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({ content: z.string().nullable().optional() }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1),
});

/** The JSON text of a reply: after the last `</think>` (no reasoning parser), outside a ```json fence. */
export function replyText(content: string): string {
  const close = content.lastIndexOf('</think>');
  const text = (close >= 0 ? content.slice(close + '</think>'.length) : content).trim();
  return fenced(text)?.trim() ?? text;
}

/**
 * What `/^```(?:json)?\s*\n([\s\S]*?)\n?```$/` captures, found with indexes: the body starts after the
 * last newline of the spaces after the opening fence and ends before the closing fence (and a newline
 * just before it). The pattern tried each newline of a long run against the rest of the text, and a
 * judge server's reply is not trusted to be short: this runs on the thread every request passes.
 */
function fenced(text: string): string | null {
  const open = /^```(?:json)?\s*/.exec(text);
  if (!open || !text.endsWith('```')) return null;
  const fence = text.startsWith('```json') ? 7 : 3;
  const newline = text.lastIndexOf('\n', open[0].length - 1);
  if (newline < fence) return null;
  const start = newline + 1;
  let end = text.length - 3;
  if (end < start) return null;
  if (end > start && text[end - 1] === '\n') end--;
  return text.slice(start, end);
}

/**
 * Checks a completion body and returns the reply's JSON once it fits `schema`. Every way it can
 * fail is "malformed" to the caller (retried, then ABORTED `judge_malformed`); the message says which.
 */
export function parseReply(completion: unknown, schema: z.ZodType): ParsedReply {
  const shape = checkAgainst(completionShape, completion, 'completion');
  if (!shape.ok) return { ok: false, message: shape.error };
  const choice = shape.value.choices[0]!;
  const content = choice.message.content;
  const finish = choice.finish_reason ?? 'unknown';
  if (typeof content !== 'string' || content.trim() === '') {
    return { ok: false, message: `empty content (finish_reason ${finish})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(replyText(content));
  } catch {
    return { ok: false, message: `content is not valid JSON (finish_reason ${finish})` };
  }
  const fits = checkAgainst(schema, json, 'reply');
  if (!fits.ok) return { ok: false, message: `content does not fit the schema: ${fits.error}` };
  return { ok: true, json };
}
