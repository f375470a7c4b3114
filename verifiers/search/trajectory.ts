import { z } from 'zod';
import { contentText, inputMessage } from '../../core/chat';
import { TOOL_FORMATS } from '../../core/transcript';

/**
 * The agent trajectory in `metadata.messages`, in OpenAI chat format: assistant messages carry
 * `tool_calls`, and each call's result is a `role: "tool"` message with its `tool_call_id`.
 *
 * How a tool call is counted:
 * - malformed: its function name is empty or not among `metadata.tools` (when given), or its
 *   `arguments` is not a JSON object (a string that does not parse to one);
 * - successful: not malformed, answered by a tool message, and that result does not mark failure;
 * - a tool result marks failure with `status: "error"` (Strands Agents' ToolResult status),
 *   `is_error: true` / `isError: true` (Anthropic, MCP), or a non-null `error` field. Its content is
 *   never inspected: a page that reads "Error 404" is still a page the tool fetched.
 * A tool message without `tool_call_id` answers the oldest call still unanswered.
 */

const contentPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const content = z.union([z.string(), z.null(), z.array(contentPart)]).optional();

const toolCall = z.looseObject({
  id: z.string().optional(),
  function: z.looseObject({
    name: z.string(),
    arguments: z.union([z.string(), z.record(z.string(), z.json())]),
  }),
});

/** A trajectory message: the chat message trainers send, with the tool fields counting reads. */
export const trajectoryMessage = inputMessage.extend({
  content,
  tool_calls: z.array(toolCall).nullable().optional(),
  tool_call_id: z.string().optional(),
  status: z.string().optional(),
  is_error: z.boolean().optional(),
  isError: z.boolean().optional(),
  error: z.json().optional(),
});

export type TrajectoryMessage = z.output<typeof trajectoryMessage>;
type ToolCall = z.output<typeof toolCall>;

const toolDef = z.union([z.string(), z.looseObject({ function: z.looseObject({ name: z.string() }) })]);

export const toolCallCounts = z
  .strictObject({
    total: z.number().int().min(0),
    successful: z.number().int().min(0),
    malformed: z.number().int().min(0),
  })
  .refine((c) => c.successful + c.malformed <= c.total, {
    message: 'successful + malformed exceed total',
    path: ['total'],
  });

export type ToolCallCounts = z.output<typeof toolCallCounts>;

/** The metadata fields the search verifier reads; anything else is left alone. */
export const searchMetadata = z.looseObject({
  messages: z.array(trajectoryMessage).optional(),
  /** The harness's typed termination reason ("stop", "max_tool_calls", "context_length", …). */
  termination: z.string().optional(),
  tool_calls: toolCallCounts.optional(),
  /** The tools offered to the agent: OpenAI tool definitions or bare names. */
  tools: z.array(toolDef).optional(),
  /** The tool-call format of a trajectory sent as text (tool-text.ts); `openai`: only metadata.messages. */
  tool_format: z.enum(TOOL_FORMATS).optional(),
});

export type SearchMetadata = z.output<typeof searchMetadata>;

export function messageText(message: TrajectoryMessage): string {
  return contentText(message.content);
}

function argumentsAreObject(args: ToolCall['function']['arguments']): boolean {
  if (typeof args !== 'string') return true;
  try {
    const parsed: unknown = JSON.parse(args);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

function isMalformed(call: ToolCall, tools: ReadonlySet<string> | null): boolean {
  const name = call.function.name.trim();
  if (name === '' || (tools !== null && !tools.has(name))) return true;
  return !argumentsAreObject(call.function.arguments);
}

function marksFailure(result: TrajectoryMessage): boolean {
  return (
    result.status?.toLowerCase() === 'error' ||
    result.is_error === true ||
    result.isError === true ||
    (result.error !== undefined && result.error !== null)
  );
}

export function toolNames(tools: SearchMetadata['tools']): ReadonlySet<string> | null {
  if (!tools) return null;
  return new Set(tools.map((t) => (typeof t === 'string' ? t : t.function.name)));
}

/** Counts the tool calls of a trajectory by the rules above. */
export function countToolCalls(messages: readonly TrajectoryMessage[], tools?: SearchMetadata['tools']): ToolCallCounts {
  const names = toolNames(tools);
  const calls: Array<{ id?: string; malformed: boolean; answered: boolean; ok: boolean }> = [];
  const byId = new Map<string, (typeof calls)[number]>();
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        const entry = { id: call.id, malformed: isMalformed(call, names), answered: false, ok: false };
        calls.push(entry);
        if (call.id !== undefined && !byId.has(call.id)) byId.set(call.id, entry);
      }
    } else if (message.role === 'tool') {
      const call =
        message.tool_call_id !== undefined ? byId.get(message.tool_call_id) : calls.find((c) => !c.answered);
      if (!call || call.answered) continue;
      call.answered = true;
      call.ok = !call.malformed && !marksFailure(message);
    }
  }
  return {
    total: calls.length,
    successful: calls.filter((c) => c.ok).length,
    malformed: calls.filter((c) => c.malformed).length,
  };
}
