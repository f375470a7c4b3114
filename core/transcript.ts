import type { ChatMessage } from './chat';
import type { Json, JsonObject } from './json';

/**
 * A chat-templated string read back into messages by the template's own markers. Trainers send
 * the prompt as the text the chat template produced (slime's `--apply-chat-template`, OpenRLHF's
 * `prompts`), while verifiers that need the conversation (`rlhf`, judge rubrics of `if`) read
 * messages. Only the format the configuration names is tried: a string it does not explain is an
 * error, never a guess at another template or at "one user message".
 *
 * Formats, each as its Hugging Face template renders (the test fixtures hold the templates and
 * Python Jinja2 renderings):
 * - `chatml`: `<|im_start|>role\n…<|im_end|>` (Qwen2.5/Qwen3; Qwen3's tool results are user turns of
 *   `<tool_response>` blocks, read back as `tool` messages);
 * - `glm4.5`: `[gMASK]<sop>` then `<|system|>`, `<|user|>`, `<|assistant|>`, `<|observation|>` turns,
 *   tool calls as `<tool_call>name<arg_key>…</arg_key><arg_value>…</arg_value></tool_call>`;
 * - `llama3`: `<|start_header_id|>role<|end_header_id|>\n\n…<|eot_id|>` after `<|begin_of_text|>`;
 * - `deepseek-r1`: `<｜begin▁of▁sentence｜>`, the system prompt bare, `<｜User｜>…`, `<｜Assistant｜>…<｜end▁of▁sentence｜>`
 *   (its tool-call markers are not read: such a string is an error);
 * - `plain`: the string is the user's message as is (a dataset prompt no template was applied to).
 *
 * A trailing open assistant turn holding only the template's generation prompt (`<think>\n`,
 * GLM's `\n<think></think>`) is the place of the response and is dropped. An assistant turn's
 * `<think>…</think>` block becomes `reasoning_content` (dropped when empty), its text after the
 * block the `content`, as the templates themselves split it.
 */
export const CHAT_FORMATS = ['chatml', 'glm4.5', 'llama3', 'deepseek-r1', 'plain'] as const;
export type ChatFormat = (typeof CHAT_FORMATS)[number];

/** Tool-call formats of a trajectory sent as text (verifiers/search/tool-text.ts); `openai`: only metadata.messages. */
export const TOOL_FORMATS = ['hermes', 'glm4.5', 'openai'] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

export function isChatFormat(value: string): value is ChatFormat {
  return (CHAT_FORMATS as readonly string[]).includes(value);
}

/** The error names no field: the caller knows which string it read. */
export type Transcript = { ok: true; messages: ChatMessage[] } | { ok: false; error: string };

export function readTranscript(text: string, format: ChatFormat): Transcript {
  try {
    const messages = READERS[format](text);
    return { ok: true, messages };
  } catch (error) {
    if (error instanceof TranscriptError) return { ok: false, error: `not a ${format} conversation: ${error.message}` };
    throw error;
  }
}

class TranscriptError extends Error {}

function fail(message: string): never {
  throw new TranscriptError(message);
}

const READERS: Record<ChatFormat, (text: string) => ChatMessage[]> = {
  chatml: readChatml,
  'glm4.5': readGlm,
  llama3: readLlama3,
  'deepseek-r1': readDeepseek,
  plain: (text) => [{ role: 'user', content: text }],
};

const ROLE = /^[A-Za-z_][\w-]*$/;

/** Where the next non-whitespace character is, from `at`. */
function skipSpace(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at]!)) at++;
  return at;
}

/** A short, printable view of the text at `at`, for the error. */
function near(text: string, at: number): string {
  return JSON.stringify(text.slice(at, at + 24));
}

/** `<think>R</think>C` → reasoning R and content C, the way the templates split an assistant turn. */
function assistant(content: string, extra: JsonObject = {}): ChatMessage {
  const open = /^\s*<think>/.exec(content);
  const close = content.indexOf('</think>');
  if (open === null || close < 0) return { role: 'assistant', content, ...extra };
  const reasoning = trimNewlines(content.slice(open[0].length, close));
  const rest = content.slice(close + '</think>'.length).replace(/^\n+/, '');
  return { role: 'assistant', content: rest, ...(reasoning !== '' ? { reasoning_content: reasoning } : {}), ...extra };
}

/** The text without leading and trailing newlines (a scan: `/\n+$/` is quadratic on long runs of newlines). */
function trimNewlines(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === '\n') start++;
  while (end > start && text[end - 1] === '\n') end--;
  return text.slice(start, end);
}

// ChatML ----------------------------------------------------------------------------------------

const IM_START = '<|im_start|>';
const IM_END = '<|im_end|>';
/** What Qwen's generation prompt may add after `<|im_start|>assistant\n` (thinking on or off). */
const CHATML_GENERATION = /^(?:<think>\n(?:\n<\/think>\n\n)?)?$/;

function readChatml(text: string): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let at = skipSpace(text, 0);
  if (at === text.length) fail('no turns');
  while (at < text.length) {
    if (!text.startsWith(IM_START, at)) fail(`text outside a turn at ${near(text, at)}`);
    const header = at + IM_START.length;
    const newline = text.indexOf('\n', header);
    const role = newline < 0 ? text.slice(header) : text.slice(header, newline);
    if (!ROLE.test(role)) fail(`no role after ${IM_START} at ${near(text, at)}`);
    const start = newline + 1;
    const end = text.indexOf(IM_END, start);
    const next = text.indexOf(IM_START, start);
    if (end < 0 || (next >= 0 && next < end)) {
      // An open turn is only the generation prompt, and only at the end.
      if (role === 'assistant' && next < 0 && CHATML_GENERATION.test(text.slice(start))) break;
      fail(`the ${role} turn at ${near(text, at)} is not closed by ${IM_END}`);
    }
    const content = text.slice(start, end);
    if (role === 'assistant') messages.push(assistant(content));
    else messages.push(...(role === 'user' ? (qwenToolResponses(content) ?? [{ role, content }]) : [{ role, content }]));
    at = skipSpace(text, end + IM_END.length);
  }
  return nonEmpty(messages);
}

/** A user turn that is only `<tool_response>\n…\n</tool_response>` blocks (one per line): Qwen3's tool results; else null. */
function qwenToolResponses(content: string): ChatMessage[] | null {
  const open = '<tool_response>\n';
  const close = '\n</tool_response>';
  const out: ChatMessage[] = [];
  let at = 0;
  while (content.startsWith(open, at)) {
    const end = content.indexOf(close, at + open.length);
    if (end < 0) return null;
    out.push({ role: 'tool', content: content.slice(at + open.length, end) });
    at = end + close.length;
    if (at === content.length) return out;
    if (content[at] !== '\n') return null;
    at++;
  }
  return null;
}

/**
 * `<arg_key>k</arg_key><arg_value>v</arg_value>` pairs, whitespace around them allowed, as GLM-4.5
 * writes a call's arguments; null when anything else is there. A linear scan: a regex with nested
 * lazy repetition would backtrack exponentially on a malformed call.
 */
export function readArgPairs(text: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  let at = 0;
  for (;;) {
    at = skipSpace(text, at);
    if (at === text.length) return out;
    const key = enclosed(text, at, '<arg_key>', '</arg_key>');
    if (key === null) return null;
    const value = enclosed(text, skipSpace(text, key.end), '<arg_value>', '</arg_value>');
    if (value === null) return null;
    out[key.text] = value.text;
    at = value.end;
  }
}

/** The text between `open` at `at` and the next `close`, and where it ends; null when not so. */
function enclosed(text: string, at: number, open: string, close: string): { text: string; end: number } | null {
  if (!text.startsWith(open, at)) return null;
  const end = text.indexOf(close, at + open.length);
  return end < 0 ? null : { text: text.slice(at + open.length, end), end: end + close.length };
}

function nonEmpty(messages: ChatMessage[]): ChatMessage[] {
  if (messages.length === 0) fail('no turns');
  return messages;
}

// GLM-4.5 ---------------------------------------------------------------------------------------

const GLM_PREFIX = '[gMASK]<sop>';
const GLM_MARKER = /<\|(system|user|assistant|observation)\|>/g;
const GLM_RESPONSE = /\n<tool_response>\n([\s\S]*?)\n<\/tool_response>/y;

function readGlm(text: string): ChatMessage[] {
  let at = skipSpace(text, 0);
  if (text.startsWith(GLM_PREFIX, at)) at += GLM_PREFIX.length;
  const markers = [...text.slice(at).matchAll(GLM_MARKER)].map((m) => ({ role: m[1]!, start: at + m.index, body: at + m.index + m[0].length }));
  if (markers.length === 0) fail('no <|user|>, <|assistant|>, <|system|> or <|observation|> turns');
  if (text.slice(at, markers[0]!.start).trim() !== '') fail(`text before the first turn at ${near(text, at)}`);
  const messages: ChatMessage[] = [];
  markers.forEach((marker, k) => {
    const last = k === markers.length - 1;
    const body = text.slice(marker.body, last ? text.length : markers[k + 1]!.start);
    if (marker.role === 'system' || marker.role === 'user') {
      messages.push({ role: marker.role, content: body.startsWith('\n') ? body.slice(1) : body });
    } else if (marker.role === 'observation') {
      messages.push(...glmToolResponses(body));
    } else if (!(last && /^(?:\n<think><\/think>)?\s*$/.test(body))) {
      messages.push(glmAssistant(body));
    }
  });
  return nonEmpty(messages);
}

function glmAssistant(body: string): ChatMessage {
  const think = /^\n<think>([\s\S]*?)<\/think>/.exec(body);
  if (think === null) fail(`an assistant turn does not open with <think>…</think> at ${near(body, 0)}`);
  let rest = body.slice(think[0].length);
  const callsAt = rest.indexOf('\n<tool_call>');
  const calls = callsAt < 0 ? '' : rest.slice(callsAt);
  rest = callsAt < 0 ? rest : rest.slice(0, callsAt);
  const toolCalls: JsonObject[] = [];
  for (let at = 0; at < calls.length; ) {
    const call = enclosed(calls, at, '\n<tool_call>', '</tool_call>');
    const newline = call === null ? -1 : call.text.indexOf('\n');
    const name = call === null ? '' : newline < 0 ? call.text : call.text.slice(0, newline);
    const args = call === null ? null : readArgPairs(newline < 0 ? '' : call.text.slice(newline));
    if (call === null || args === null || name.includes('<')) {
      fail(`a tool call that is not <tool_call>name<arg_key>…</arg_key><arg_value>…</arg_value></tool_call> at ${near(calls, at)}`);
    }
    toolCalls.push({ type: 'function', function: { name, arguments: args } });
    at = call.end;
  }
  const reasoning = think[1]!;
  return {
    role: 'assistant',
    content: rest.replace(/^\n/, ''),
    ...(reasoning !== '' ? { reasoning_content: reasoning } : {}),
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
}

function glmToolResponses(body: string): ChatMessage[] {
  const out: ChatMessage[] = [];
  GLM_RESPONSE.lastIndex = 0;
  while (GLM_RESPONSE.lastIndex < body.trimEnd().length) {
    const match = GLM_RESPONSE.exec(body);
    if (match === null) fail(`an <|observation|> turn that is not <tool_response> blocks at ${near(body, 0)}`);
    out.push({ role: 'tool', content: match[1]! });
  }
  if (out.length === 0) fail('an empty <|observation|> turn');
  return out;
}

// Llama 3 ---------------------------------------------------------------------------------------

const LLAMA_BOS = '<|begin_of_text|>';
const LLAMA_HEADER = '<|start_header_id|>';
const LLAMA_HEADER_END = '<|end_header_id|>';
/** `<|eot_id|>` ends a turn; Llama 3.1 ends a tool-calling turn with `<|eom_id|>`. */
const LLAMA_END = /<\|eot_id\|>|<\|eom_id\|>/g;

function readLlama3(text: string): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let at = skipSpace(text, 0);
  if (text.startsWith(LLAMA_BOS, at)) at += LLAMA_BOS.length;
  while (at < text.length) {
    if (!text.startsWith(LLAMA_HEADER, at)) fail(`text outside a turn at ${near(text, at)}`);
    const headerEnd = text.indexOf(LLAMA_HEADER_END, at);
    const role = headerEnd < 0 ? '' : text.slice(at + LLAMA_HEADER.length, headerEnd);
    if (!ROLE.test(role)) fail(`no role in the header at ${near(text, at)}`);
    let start = headerEnd + LLAMA_HEADER_END.length;
    if (text.startsWith('\n\n', start)) start += 2;
    LLAMA_END.lastIndex = start;
    const end = LLAMA_END.exec(text);
    const next = text.indexOf(LLAMA_HEADER, start);
    if (end === null || (next >= 0 && next < end.index)) {
      if (role === 'assistant' && next < 0 && text.slice(start).trim() === '') break;
      fail(`the ${role} turn at ${near(text, at)} is not closed by <|eot_id|>`);
    }
    const content = text.slice(start, end.index);
    messages.push(role === 'assistant' ? assistant(content) : { role: role === 'ipython' ? 'tool' : role, content });
    at = skipSpace(text, end.index + end[0].length);
  }
  return nonEmpty(messages);
}

// DeepSeek-R1 -----------------------------------------------------------------------------------

const DS_BOS = '<｜begin▁of▁sentence｜>';
const DS_USER = '<｜User｜>';
const DS_ASSISTANT = '<｜Assistant｜>';
const DS_EOS = '<｜end▁of▁sentence｜>';
const DS_TOOL = '<｜tool▁';

function readDeepseek(text: string): ChatMessage[] {
  if (text.includes(DS_TOOL)) fail('its tool-call and tool-output turns are not read; send metadata.messages');
  let at = skipSpace(text, 0);
  if (text.startsWith(DS_BOS, at)) at += DS_BOS.length;
  const first = text.indexOf(DS_USER, at);
  if (first < 0) fail(`no ${DS_USER} turn`);
  const messages: ChatMessage[] = [];
  // The template writes the system prompt bare, before the first user turn.
  const system = text.slice(at, first);
  if (system !== '') messages.push({ role: 'system', content: system });
  at = first;
  while (at < text.length) {
    if (text.startsWith(DS_USER, at)) {
      const start = at + DS_USER.length;
      const end = nextOf(text, start, [DS_USER, DS_ASSISTANT]);
      messages.push({ role: 'user', content: text.slice(start, end) });
      at = end;
    } else if (text.startsWith(DS_ASSISTANT, at)) {
      const start = at + DS_ASSISTANT.length;
      const end = text.indexOf(DS_EOS, start);
      const next = nextOf(text, start, [DS_USER, DS_ASSISTANT]);
      if (end < 0 || next < end) {
        if (next === text.length && /^(?:<think>\n?)?\s*$/.test(text.slice(start))) break;
        fail(`the assistant turn at ${near(text, at)} is not closed by ${DS_EOS}`);
      }
      messages.push(assistant(text.slice(start, end)));
      at = skipSpace(text, end + DS_EOS.length);
    } else {
      fail(`text outside a turn at ${near(text, at)}`);
    }
  }
  return nonEmpty(messages);
}

/** The first of `markers` from `from`, or the end of the text. */
function nextOf(text: string, from: number, markers: readonly string[]): number {
  let best = text.length;
  for (const marker of markers) {
    const at = text.indexOf(marker, from);
    if (at >= 0 && at < best) best = at;
  }
  return best;
}

/** Where a verifier finds the conversation before the response, and under which field name to report it. */
export type PromptConversation = { ok: true; value: Json | undefined; field: string } | { ok: false; error: string };

/** The sample key that names the format of a string `metadata.prompt` (`?chat_format=` on the trainer routes). */
export const CHAT_FORMAT_KEY = 'metadata.chat_format';

/**
 * The prompt conversation of a sample: `metadata.messages` as sent (for the verifier's own schema to
 * check), else the string `metadata.prompt` read in the format `metadata.chat_format` names, else
 * nothing (`value` undefined, reported as `metadata.messages`).
 */
export function promptConversation(metadata: JsonObject): PromptConversation {
  const messages = metadata['messages'];
  if (messages !== undefined) return { ok: true, value: messages, field: 'metadata.messages' };
  const prompt = metadata['prompt'];
  // An empty prompt is no prompt (slime sends "" for a dataset without one).
  if (prompt === undefined || prompt === null || prompt === '') return { ok: true, value: undefined, field: 'metadata.messages' };
  if (typeof prompt !== 'string') return { ok: false, error: 'metadata.prompt: expected string' };
  const format = chatFormatOf(metadata);
  if (!format.ok) return format;
  if (format.value === null) {
    return {
      ok: false,
      error: `${CHAT_FORMAT_KEY}: required to read the string metadata.prompt as a conversation (${CHAT_FORMATS.join(', ')}; ?chat_format= on a trainer route)`,
    };
  }
  const read = readTranscript(prompt, format.value);
  if (!read.ok) return { ok: false, error: `metadata.prompt: ${read.error} (the format ${CHAT_FORMAT_KEY} names)` };
  return { ok: true, value: read.messages as Json, field: 'metadata.prompt' };
}

/** `metadata.chat_format`: a known format, null when absent, or the error naming the key. */
export function chatFormatOf(metadata: JsonObject): { ok: true; value: ChatFormat | null } | { ok: false; error: string } {
  const format = metadata['chat_format'];
  if (format === undefined || format === null || format === '') return { ok: true, value: null };
  if (typeof format !== 'string' || !isChatFormat(format)) {
    return { ok: false, error: `${CHAT_FORMAT_KEY}: unknown format ${JSON.stringify(format)} (known: ${CHAT_FORMATS.join(', ')})` };
  }
  return { ok: true, value: format };
}

/** Markers by which a chat template's source shows its format (DeepSeek's distills of Qwen keep DeepSeek's markers). */
const TEMPLATE_MARKERS: ReadonlyArray<[Exclude<ChatFormat, 'plain'>, readonly string[]]> = [
  ['chatml', ['<|im_start|>']],
  ['glm4.5', ['[gMASK]<sop>', '<|observation|>']],
  ['llama3', ['<|start_header_id|>']],
  ['deepseek-r1', [DS_USER]],
];

/** The format of a chat template's Jinja source by the markers it writes; an error when none or several match. */
export function chatFormatOfTemplate(source: string): { ok: true; value: ChatFormat } | { ok: false; error: string } {
  const found = TEMPLATE_MARKERS.filter(([, markers]) => markers.some((m) => source.includes(m))).map(([format]) => format);
  if (found.length === 1) return { ok: true, value: found[0]! };
  if (found.length === 0) return { ok: false, error: `the template writes none of the markers of ${TEMPLATE_MARKERS.map(([f]) => f).join(', ')}` };
  return { ok: false, error: `the template writes the markers of several formats (${found.join(', ')}): name one` };
}
