import { z } from 'zod';
import type { Json } from '../../core/json';
import { finalText } from '../../core/text';
import type { ChatMessage } from '../../core/chat';

/** `metadata.messages`: the prompt conversation in OpenAI chat format, before the response. */
export const promptMessages = z
  .array(
    z
      .object({ role: z.enum(['system', 'user', 'assistant', 'tool']), content: z.string() })
      // Metadata is JSON already; extra fields (tool_calls, reasoning_content) go to the template as is.
      .catchall(z.custom<Json>(() => true)),
  )
  .min(1);

export interface Reply {
  content: string;
  /** The response opened `<think>` and never closed it: there is no answer to score. */
  unclosedThink: boolean;
}

/**
 * The assistant turn the reward model sees. With `stripThink` only the text after the last
 * `</think>` is kept, so the model scores the answer, not the reasoning; an unclosed `<think>`
 * leaves an empty answer.
 */
export function replyFor(response: string, stripThink: boolean): Reply {
  if (!stripThink) return { content: response, unclosedThink: false };
  const text = finalText(response);
  return text === null ? { content: '', unclosedThink: true } : { content: text.replace(/^\s+/, ''), unclosedThink: false };
}

export function conversation(prompt: readonly ChatMessage[], reply: Reply): ChatMessage[] {
  return [...prompt, { role: 'assistant', content: reply.content }];
}
