import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Template } from '@huggingface/jinja';
import type { ChatMessage } from '../../core/chat';
import type { Json, JsonObject } from '../../core/json';
import { isJsonObject } from '../../core/json';
import { packageRoot } from '../paths';

export interface RenderOptions {
  addGenerationPrompt?: boolean;
  tools?: Json[] | null;
}

/**
 * A Hugging Face chat template rendered client-side, the way `transformers`' `apply_chat_template`
 * renders it with Python's Jinja2 (checked byte for byte against Jinja2 renderings in the tests).
 */
export class ChatTemplate {
  private readonly template: Template;

  constructor(
    readonly source: string,
    private readonly specialTokens: Record<string, string> = {},
  ) {
    // Required here, not imported: the config module reads templates' sources through this one,
    // and `verdict score` loads the config module without rendering any template.
    this.template = new (require('@huggingface/jinja') as typeof import('@huggingface/jinja')).Template(source);
  }

  render(messages: readonly ChatMessage[], options: RenderOptions = {}): string {
    return this.template.render({
      ...this.specialTokens,
      messages,
      tools: options.tools ?? null,
      add_generation_prompt: options.addGenerationPrompt ?? false,
    });
  }
}

export class ChatTemplateError extends Error {}

const BUILT_IN = /^[a-z0-9][a-z0-9_-]*$/;

/**
 * Where a config's `chatTemplate` points: a built-in name (`qwen3`, under the package root because
 * tsc does not copy .jinja files into dist/) or a file path.
 */
export function resolveTemplatePath(spec: string): string {
  if (BUILT_IN.test(spec)) return path.join(packageRoot(), 'services', 'reward-model', 'templates', `${spec}.jinja`);
  return path.resolve(spec);
}

function tokenText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  // tokenizer_config.json may spell a token as an AddedToken object.
  const content = isJsonObject(value as Json) ? (value as JsonObject)['content'] : undefined;
  return typeof content === 'string' ? content : undefined;
}

/**
 * Loads a template from a `.jinja` file or from a model's `tokenizer_config.json` (its
 * `chat_template`, or the entry named "default" when it is a list, plus its special tokens).
 * `tokens` (e.g. `bos_token` from the config) are given to the template too, over the file's.
 * Nothing is fetched: the file must be on disk at start-up.
 */
export function loadChatTemplate(spec: string, tokens: Record<string, string> = {}): ChatTemplate {
  const file = resolveTemplatePath(spec);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ChatTemplateError(`cannot read ${file} (${(error as Error).message})`);
  }
  try {
    if (!file.endsWith('.json')) return new ChatTemplate(text, tokens);
    const config: unknown = JSON.parse(text);
    if (!isJsonObject(config as Json)) throw new ChatTemplateError(`${file}: not a JSON object`);
    const object = config as JsonObject;
    const raw = object['chat_template'];
    const source =
      typeof raw === 'string'
        ? raw
        : Array.isArray(raw)
          ? raw.find((t): t is JsonObject => isJsonObject(t) && t['name'] === 'default')?.['template']
          : undefined;
    if (typeof source !== 'string') throw new ChatTemplateError(`${file}: no chat_template`);
    const fromFile: Record<string, string> = {};
    for (const key of ['bos_token', 'eos_token', 'unk_token', 'pad_token']) {
      const token = tokenText(object[key]);
      if (token !== undefined) fromFile[key] = token;
    }
    return new ChatTemplate(source, { ...fromFile, ...tokens });
  } catch (error) {
    if (error instanceof ChatTemplateError) throw error;
    throw new ChatTemplateError(`${file}: ${(error as Error).message}`);
  }
}
