import type { JsonObject } from '../../core/json';
import type { ChatMessage } from '../../core/chat';
import type { EndpointConfig } from './config';

/** What one conversation travels as: templated text, or the messages for a server that templates. */
export type RmInput = { text: string } | { messages: ChatMessage[] };

export type Parsed = { ok: true; scores: number[] } | { ok: false; error: string };

/**
 * One server's reward route: the request body for a batch of inputs and the raw logits read back
 * from the answer, in input order. Every route here returns the logit itself, never an activation.
 */
export interface RewardProtocol {
  path: string;
  body(inputs: readonly RmInput[]): JsonObject;
  parse(body: unknown, count: number): Parsed;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The single logit of a 1-label head, or why the value is not one. */
function oneLogit(values: unknown, where: string): number | string {
  if (!Array.isArray(values)) return `${where}: expected an array`;
  if (values.length !== 1) return `${where}: expected 1 value (a 1-label classifier head), got ${values.length}`;
  const [logit] = values as unknown[];
  if (typeof logit !== 'number' || !Number.isFinite(logit)) return `${where}[0]: expected a finite number`;
  return logit;
}

function texts(inputs: readonly RmInput[]): string[] {
  return inputs.map((input) => {
    if (!('text' in input)) throw new Error('this route takes templated text');
    return input.text;
  });
}

/**
 * SGLang native `/classify` (server started with `--is-embedding`): `text` as a list, answered by a
 * JSON array of `{embedding: [logit], meta_info}` in input order. Not `/v1/classify`, which
 * softmaxes a 1-label head into a constant 1.0.
 */
export const sglangClassify = (model: string): RewardProtocol => ({
  path: '/classify',
  body: (inputs) => ({ model, text: texts(inputs) }),
  parse(body, count) {
    if (!Array.isArray(body)) return { ok: false, error: 'expected a JSON array' };
    if (body.length !== count) return { ok: false, error: `expected ${count} results, got ${body.length}` };
    const scores: number[] = [];
    for (let i = 0; i < body.length; i++) {
      const logit = oneLogit(record(body[i])?.['embedding'], `[${i}].embedding`);
      if (typeof logit === 'string') return { ok: false, error: logit };
      scores.push(logit);
    }
    return { ok: true, scores };
  },
});

/**
 * vLLM `/classify` (`data[i].probs`, which holds raw logits once activation is off) or `/pooling`
 * (`data[i].data`). A 1-label head gets a sigmoid unless the request turns activation off, so the
 * flag is always sent, under the name the configured API version reads.
 */
export function vllmRoute(
  model: string,
  route: 'classify' | 'pooling',
  api: 'current' | 'previous',
): RewardProtocol {
  const flag = api === 'current' ? 'use_activation' : 'activation';
  const field = route === 'classify' ? 'probs' : 'data';
  return {
    path: `/${route}`,
    body(inputs) {
      const first = inputs[0];
      if (first !== undefined && 'messages' in first) {
        if (inputs.length !== 1) throw new Error('vLLM takes one conversation per chat-style request');
        return { model, messages: first.messages, [flag]: false };
      }
      return { model, input: texts(inputs), [flag]: false };
    },
    parse(body, count) {
      const data = record(body)?.['data'];
      if (!Array.isArray(data)) return { ok: false, error: 'expected an object with a "data" array' };
      if (data.length !== count) return { ok: false, error: `expected ${count} results, got ${data.length}` };
      const scores = new Array<number>(count);
      const seen = new Set<number>();
      for (let i = 0; i < data.length; i++) {
        const item = record(data[i]);
        const index = item?.['index'] ?? i;
        if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || seen.has(index)) {
          return { ok: false, error: `data[${i}].index: expected a distinct index below ${count}` };
        }
        seen.add(index);
        const logit = oneLogit(item?.[field], `data[${i}].${field}`);
        if (typeof logit === 'string') return { ok: false, error: logit };
        scores[index] = logit;
      }
      return { ok: true, scores };
    },
  };
}

export function protocolFor(config: EndpointConfig): RewardProtocol {
  return config.server === 'sglang'
    ? sglangClassify(config.model)
    : vllmRoute(config.model, config.route, config.api);
}
