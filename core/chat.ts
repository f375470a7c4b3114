import { z } from 'zod';
import type { JsonObject } from './json';

/**
 * One chat message in OpenAI chat format with text content: what a judge prompt is made of and
 * what a reward model scores. Extra fields (tool_calls, reasoning_content) ride along as JSON, so a
 * chat template can read them. The one message type of the code base.
 */
export interface ChatMessage extends JsonObject {
  role: string;
  content: string;
}

/**
 * One message of `metadata.messages` as trainers send it: OpenAI chat format, where content may be
 * a string, null, or a list of parts. Verifiers extend it with the fields they read.
 */
export const inputMessage = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.null(), z.array(z.looseObject({ type: z.string().optional(), text: z.string().optional() }))]).optional(),
});

export type InputMessage = z.output<typeof inputMessage>;

/** The text of a message's content: a string as is, text parts joined, nothing for null/absent. */
export function contentText(content: InputMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content.map((part) => part.text ?? '').join('');
}

/** An input message as a ChatMessage with text content (extra fields dropped). */
export function textMessage(message: InputMessage): ChatMessage {
  return { role: message.role, content: contentText(message.content) };
}
