import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Json } from '../../core/json';
import type { ChatMessage } from '../../core/chat';
import { ChatTemplateError, loadChatTemplate } from '../../services/reward-model/chat-template';
import { sharedDir } from './repo';

interface Rendering {
  name: string;
  messages: ChatMessage[];
  tools: Json[] | null;
  add_generation_prompt: boolean;
  rendered: string;
}

const renderings: Rendering[] = readFileSync(sharedDir('data', 'chat-templates', 'qwen3-renderings.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Rendering);

describe('chat template: Python Jinja2 reference renderings', () => {
  it('has the reference cases to check', () => {
    expect(renderings.length).toBeGreaterThanOrEqual(5);
  });

  // The built-in copy is what the service loads at run time; the shared file is the reference.
  it.each([['built-in "qwen3"', 'qwen3'], ['shared qwen3.jinja', sharedDir('data', 'chat-templates', 'qwen3.jinja')]])(
    '%s reproduces every rendering byte for byte',
    (_, spec) => {
      const template = loadChatTemplate(spec);
      for (const r of renderings) {
        const out = template.render(r.messages, { tools: r.tools, addGenerationPrompt: r.add_generation_prompt });
        expect({ name: r.name, out }).toEqual({ name: r.name, out: r.rendered });
      }
    },
  );

  it('renders the generation prompt only when asked', () => {
    const template = loadChatTemplate('qwen3');
    const messages = [{ role: 'user', content: 'Hi' }];
    expect(template.render(messages)).toBe('<|im_start|>user\nHi<|im_end|>\n');
    expect(template.render(messages, { addGenerationPrompt: true })).toBe(
      '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n',
    );
  });
});

describe('chat template: loading', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'verdict-rlhf-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads chat_template and special tokens from a tokenizer_config.json', () => {
    const file = path.join(dir, 'tokenizer_config.json');
    writeFileSync(
      file,
      JSON.stringify({
        bos_token: { content: '<s>', lstrip: false },
        eos_token: '</s>',
        chat_template: [
          { name: 'tool_use', template: 'TOOLS' },
          { name: 'default', template: '{{ bos_token }}{% for m in messages %}[{{ m.content }}]{% endfor %}{{ eos_token }}' },
        ],
      }),
    );
    expect(loadChatTemplate(file).render([{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }])).toBe(
      '<s>[a][b]</s>',
    );
  });

  it('fails at load time, naming the file, when the template is missing or has no chat_template', () => {
    expect(() => loadChatTemplate(path.join(dir, 'nope.jinja'))).toThrow(ChatTemplateError);
    expect(() => loadChatTemplate(path.join(dir, 'nope.jinja'))).toThrow(/nope\.jinja/);
    const file = path.join(dir, 'empty_config.json');
    writeFileSync(file, '{"bos_token": "<s>"}');
    expect(() => loadChatTemplate(file)).toThrow(/no chat_template/);
  });
});
