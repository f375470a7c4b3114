import path from 'node:path';
import type { ChatMessage } from '../../core/chat';
import type { Json, JsonObject } from '../../core/json';
import { chatFormatOfTemplate, readTranscript, type ChatFormat } from '../../core/transcript';
import { loadChatTemplate } from '../../services/reward-model/chat-template';
import { jsonLines, renderings, templatesDir, type Rendering } from '../fixtures/chat-templates';
import { sharedPath } from '../fixtures/shared';

const FORMAT: Record<string, ChatFormat> = {
  'qwen3.jinja': 'chatml',
  'glm-4.5.jinja': 'glm4.5',
  'llama-3.jinja': 'llama3',
  'deepseek-r1.jinja': 'deepseek-r1',
};

const ours = renderings;
const shared = jsonLines<Omit<Rendering, 'template' | 'bos_token'>>(sharedPath('data', 'chat-templates', 'qwen3-renderings.jsonl')).map(
  (r): Rendering => ({ ...r, template: 'qwen3.jinja', bos_token: null }),
);

function templateFile(name: string): string {
  return name === 'qwen3.jinja' ? 'qwen3' : path.join(templatesDir, name);
}

/** What the template keeps of a message: the text after the think block (trimmed), the tool-call names. */
function kept(message: ChatMessage): Json {
  const content = message.content.includes('</think>') ? message.content.split('</think>').at(-1)! : message.content;
  const calls = (message['tool_calls'] as JsonObject[] | undefined)?.map((c) => (c['function'] as JsonObject)['name']!);
  return { role: message.role, content: content.trim(), ...(calls ? { calls } : {}) };
}

describe('chat transcripts: messages → real template → string → messages', () => {
  it('has renderings of every template', () => {
    expect(new Set(ours.map((r) => r.template))).toEqual(new Set(Object.keys(FORMAT)));
  });

  it.each([...ours, ...shared].map((r) => [`${r.template} ${r.name}`, r] as const))('%s', (_, r) => {
    const format = FORMAT[r.template]!;
    const read = readTranscript(r.rendered, format);
    if (!read.ok) throw new Error(read.error);
    // Qwen3 writes tool calls as text in the turn: the tool-call names are then in the content.
    // The tool definitions the template writes are a system turn of the string.
    const tools: Json[] = r.tools ? [{ role: 'system', content: expect.stringContaining('# Tools') as unknown as string }] : [];
    const expected = [...tools, ...r.messages.map(kept)].map((m) =>
      format === 'chatml' && typeof m === 'object' && m !== null && 'calls' in (m as JsonObject) ? { role: 'assistant', content: expect.stringContaining('<tool_call>') } : m,
    );
    expect(read.messages.map(kept)).toEqual(expected);
    // Rendered again by the same template, the messages read give the same text: nothing lost that it shows.
    const tokens: Record<string, string> = r.bos_token === null ? {} : { bos_token: r.bos_token };
    const again = loadChatTemplate(templateFile(r.template), tokens).render(read.messages, { addGenerationPrompt: r.add_generation_prompt });
    expect(again).toBe(r.rendered);
  });

  it('reads the think block as the template splits it', () => {
    const read = readTranscript('<|im_start|>user\nQ<|im_end|>\n<|im_start|>assistant\n<think>\nmm\n</think>\n\nA<|im_end|>\n', 'chatml');
    expect(read).toEqual({ ok: true, messages: [{ role: 'user', content: 'Q' }, { role: 'assistant', content: 'A', reasoning_content: 'mm' }] });
  });

  it('a string the named template does not explain is an error, never another guess', () => {
    const glm = ours.find((r) => r.template === 'glm-4.5.jinja' && r.name === 'prompt')!.rendered;
    expect(readTranscript(glm, 'chatml')).toEqual({ ok: false, error: expect.stringMatching(/^not a chatml conversation: text outside a turn/) });
    expect(readTranscript('What is 2+2?', 'llama3')).toEqual({ ok: false, error: expect.stringMatching(/^not a llama3 conversation/) });
    expect(readTranscript('What is 2+2?', 'glm4.5')).toEqual({ ok: false, error: expect.stringMatching(/^not a glm4.5 conversation: no <\|user\|>/) });
    expect(readTranscript('<|im_start|>user\nQ', 'chatml')).toEqual({ ok: false, error: expect.stringMatching(/the user turn .* is not closed/) });
    expect(readTranscript('<｜User｜>Q<｜Assistant｜>A', 'deepseek-r1')).toEqual({ ok: false, error: expect.stringMatching(/not closed/) });
    expect(readTranscript('What is 2+2?', 'plain')).toEqual({ ok: true, messages: [{ role: 'user', content: 'What is 2+2?' }] });
    // Malformed tool markup with many parts is refused in one pass, not after exponential backtracking.
    const pairs = '\n<arg_key>a</arg_key>\n<arg_value>b</arg_value>'.repeat(60);
    expect(readTranscript(`<|user|>\nq<|assistant|>\n<think></think>\n<tool_call>s${pairs}X\n</tool_call>`, 'glm4.5')).toEqual({ ok: false, error: expect.stringMatching(/a tool call that is not/) });
    const results = '<tool_response>\nr\n</tool_response>\n'.repeat(60);
    expect(readTranscript(`<|im_start|>user\n${results}X<|im_end|>\n`, 'chatml')).toEqual({ ok: true, messages: [{ role: 'user', content: `${results}X` }] });
  });

  it("a template's source says its format by the markers it writes", () => {
    for (const [file, format] of Object.entries(FORMAT)) {
      expect([file, chatFormatOfTemplate(loadChatTemplate(templateFile(file)).source)]).toEqual([file, { ok: true, value: format }]);
    }
    expect(chatFormatOfTemplate('{% for m in messages %}{{ m.content }}{% endfor %}')).toEqual({ ok: false, error: expect.stringMatching(/^the template writes none/) });
    expect(chatFormatOfTemplate('<|im_start|>{{ x }}<|start_header_id|>')).toEqual({ ok: false, error: expect.stringMatching(/several formats \(chatml, llama3\)/) });
  });
});
