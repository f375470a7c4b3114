import { Template } from '@huggingface/jinja';
import { FakeHttpServer, fakeLogit, type Fault, type Reply } from './fake-reward-model';

export interface FakeVllmOptions {
  model?: string;
  /**
   * current: vLLM >= 0.16, reads only `use_activation` and rejects `normalize`; previous: vLLM
   * 0.10.2 – 0.11.0, reads only `activation`. A flag a version does not know is an extra field,
   * which vLLM logs and ignores — so the activation stays on.
   */
  api?: 'current' | 'previous';
  /** nested: vLLM >= 0.10.1; flat: the envelope before it. */
  errorEnvelope?: 'nested' | 'flat';
  /** The template the server applies to chat-style (`messages`) requests. */
  chatTemplate?: string;
  /** Longer inputs get vLLM's context-length 400. */
  maxInputChars?: number;
  /** Answer `data` in reverse order (indices stay right), as a client must not rely on order. */
  reverseData?: boolean;
}

/**
 * A fake vLLM server running a 1-label sequence classifier (`--runner pooling`, classify task),
 * speaking the wire format of ../shared/reference/wire-protocols.md §1.2: `/classify`
 * (`data[i].probs`) and `/pooling` (`data[i].data`), completion-style `input` or chat-style
 * `messages`, and a per-request activation flag — without it a 1-label head gets a sigmoid, as
 * in vLLM. The "model" is `fakeLogit` of each (templated) text.
 */
export class FakeVllmServer extends FakeHttpServer {
  constructor(options: FakeVllmOptions = {}) {
    const model = options.model ?? 'Skywork/Skywork-Reward-V2-Qwen3-8B';
    const api = options.api ?? 'current';
    const template = options.chatTemplate !== undefined ? new Template(options.chatTemplate) : undefined;
    const error = (status: number, type: string, message: string): Reply => {
      const info = { message, type, param: null, code: status };
      return { status, body: options.errorEnvelope === 'flat' ? { object: 'error', ...info } : { error: info } };
    };
    let served = 0;
    super((method, path, raw) => {
      if (method === 'GET' && path === '/health') return { status: 200, body: {} };
      if (path !== '/classify' && path !== '/pooling') return error(404, 'NotFoundError', `Not Found: ${path}`);
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        return error(400, 'BadRequestError', 'Request body must be a JSON object');
      }
      const body = raw as Record<string, unknown>;
      if (api === 'current' && 'normalize' in body) {
        return error(400, 'BadRequestError', '`normalize` is removed; use `use_activation` instead');
      }
      const flag = body[api === 'current' ? 'use_activation' : 'activation'];
      if (flag !== undefined && flag !== null && typeof flag !== 'boolean') {
        return error(400, 'BadRequestError', 'activation flag: Input should be a valid boolean');
      }
      const activation = flag ?? true;

      let texts: string[];
      if (body['messages'] !== undefined && body['input'] !== undefined) {
        return error(400, 'BadRequestError', 'Provide either "input" or "messages", not both');
      } else if (body['messages'] !== undefined) {
        if (!template) return error(400, 'BadRequestError', 'This fake server has no chat template');
        if (!Array.isArray(body['messages'])) return error(400, 'BadRequestError', 'messages: Input should be a valid list');
        try {
          texts = [
            template.render({ messages: body['messages'], add_generation_prompt: body['add_generation_prompt'] === true }),
          ];
        } catch (e) {
          return error(400, 'BadRequestError', `chat template error: ${(e as Error).message}`);
        }
      } else if (typeof body['input'] === 'string') {
        texts = [body['input']];
      } else if (Array.isArray(body['input']) && body['input'].every((t) => typeof t === 'string')) {
        texts = body['input'] as string[];
      } else {
        return error(400, 'BadRequestError', 'input: Field required (a string or a list of strings)');
      }
      const tooLong = texts.find((t) => options.maxInputChars !== undefined && t.length > options.maxInputChars);
      if (tooLong !== undefined) {
        return error(
          400,
          'BadRequestError',
          `This model's maximum context length is ${options.maxInputChars} tokens. However, you requested ${tooLong.length} tokens in the input.`,
        );
      }

      const values = texts.map((t) => {
        const logit = fakeLogit(t);
        return activation ? 1 / (1 + Math.exp(-logit)) : logit;
      });
      const data = values.map((value, index) =>
        path === '/classify'
          ? { index, label: 'LABEL_0', probs: [value], num_classes: 1 }
          : { index, object: 'pooling', data: [value] },
      );
      if (options.reverseData) data.reverse();
      const tokens = texts.reduce((sum, t) => sum + Math.ceil(t.length / 4), 0);
      return {
        status: 200,
        body: {
          id: `${path === '/classify' ? 'classify' : 'pool'}-${served++}`,
          object: 'list',
          created: 1767225600,
          model,
          data,
          usage: { prompt_tokens: tokens, total_tokens: tokens, completion_tokens: 0, prompt_tokens_details: null },
        },
      };
    });
  }

  /** Overload as a gateway or admission control reports it: 429 with a Retry-After. */
  static rateLimited(retryAfterMs: number): Fault {
    return {
      kind: 'status',
      status: 429,
      body: { error: { message: 'Too many requests', type: 'RateLimitError', param: null, code: 429 } },
      headers: { 'retry-after-ms': String(retryAfterMs) },
    };
  }

  static internalError(): Fault {
    return {
      kind: 'status',
      status: 500,
      body: { error: { message: 'Internal server error', type: 'InternalServerError', param: null, code: 500 } },
    };
  }
}
