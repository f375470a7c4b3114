import { readArgPairs, type ChatFormat, type ToolFormat } from '../../core/transcript';

/**
 * Tool calls counted in a trajectory sent as text — what slime and OpenRLHF send for a multi-turn
 * rollout: the policy's turns with the environment's tool results spliced in, in the model's own
 * tool-call format. The format is named, never guessed (`metadata.tool_format`, or implied by
 * `metadata.chat_format`):
 *
 * - `hermes` (Qwen2.5/Qwen3 templates, ChatML): `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`;
 *   a call is malformed when its body is not a JSON object with a non-empty string `name` and an
 *   object `arguments` (or a string holding one);
 * - `glm4.5`: `<tool_call>name\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>…</tool_call>`;
 *   malformed when the name is not a bare function name or anything but key/value pairs follows it.
 *
 * Both: a call whose name is not among `metadata.tools` (when given) or that is never closed is
 * malformed; each `<tool_response>…</tool_response>` answers the oldest call not yet answered, and
 * a well-formed answered call is successful (a result's text is never inspected, as for messages).
 */
export type TextToolFormat = Exclude<ToolFormat, 'openai'>;

/** The tool-call format a chat format writes, where it has one the counter reads. */
export const TOOL_FORMAT_OF_CHAT: Partial<Record<ChatFormat, TextToolFormat>> = { chatml: 'hermes', 'glm4.5': 'glm4.5' };

const TAG = /<tool_call>|<tool_response>/g;
/** A function name as GLM writes it on the call's first line: no spaces, no JSON. */
const FUNCTION_NAME = /^[\w.:-]+$/u;

function isObjectText(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

function hermesName(body: string): string | null {
  let call: unknown;
  try {
    call = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof call !== 'object' || call === null || Array.isArray(call)) return null;
  const { name, arguments: args } = call as Record<string, unknown>;
  if (typeof name !== 'string' || name.trim() === '') return null;
  const argsOk = typeof args === 'string' ? isObjectText(args) : typeof args === 'object' && args !== null && !Array.isArray(args);
  return argsOk ? name.trim() : null;
}

function glmName(body: string): string | null {
  const newline = body.indexOf('\n');
  const first = newline < 0 ? body : body.slice(0, newline);
  // The name ends where the first argument starts (GLM-4.7 writes them on the name's line).
  const argsAt = first.indexOf('<arg_key>');
  const name = (argsAt < 0 ? first : first.slice(0, argsAt)).trim();
  const args = argsAt < 0 ? (newline < 0 ? '' : body.slice(newline)) : body.slice(argsAt);
  return FUNCTION_NAME.test(name) && readArgPairs(args) !== null ? name : null;
}

/** The well-formed call's name, or null for a malformed one. */
const NAME_OF: Record<TextToolFormat, (body: string) => string | null> = { hermes: hermesName, 'glm4.5': glmName };

/** The counts of trajectory.ts's ToolCallCounts (not imported: trajectory.ts reads TOOL_FORMATS from here). */
export interface TextToolCallCounts {
  total: number;
  successful: number;
  malformed: number;
}

export function countTextToolCalls(text: string, format: TextToolFormat, tools: ReadonlySet<string> | null): TextToolCallCounts {
  const calls: boolean[] = []; // malformed, per call
  let answered = 0; // results answer calls in order: the first `answered` calls have theirs
  let successful = 0;
  TAG.lastIndex = 0;
  for (let tag = TAG.exec(text); tag !== null; tag = TAG.exec(text)) {
    const isCall = tag[0] === '<tool_call>';
    const closing = isCall ? '</tool_call>' : '</tool_response>';
    const end = text.indexOf(closing, TAG.lastIndex);
    const body = text.slice(TAG.lastIndex, end < 0 ? text.length : end);
    if (isCall) {
      const name = end < 0 ? null : NAME_OF[format](body.trim());
      calls.push(name === null || (tools !== null && !tools.has(name)));
    } else if (answered < calls.length) {
      if (!calls[answered]) successful++;
      answered++;
    }
    if (end < 0) break;
    TAG.lastIndex = end + closing.length;
  }
  return { total: calls.length, successful, malformed: calls.filter(Boolean).length };
}

/** The text after the last tool result: the final turn, where the answer is. */
export function afterLastToolResponse(text: string): string {
  const at = text.lastIndexOf('</tool_response>');
  return at < 0 ? text : text.slice(at + '</tool_response>'.length);
}
