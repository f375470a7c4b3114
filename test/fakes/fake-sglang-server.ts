import { FakeHttpServer, fakeLogit, type Fault, type Reply } from './fake-reward-model';

/**
 * A fake SGLang server running a 1-label reward model with `--is-embedding`, speaking the wire
 * format of ../shared/reference/wire-protocols.md §1.1: native `/classify` and `/encode`
 * (`text`: string or list → one object or an array of `{embedding: [logit], meta_info}`),
 * `/v1/classify` (softmax over one label: always `probs: [1.0]`), `/health`, and SGLang's error
 * bodies. The "model" is `fakeLogit` of each text.
 */
export class FakeSglangServer extends FakeHttpServer {
  constructor(readonly model = 'Skywork/Skywork-Reward-V2-Qwen3-8B') {
    let served = 0;
    super((method, path, body) => {
      if (method === 'GET' && path === '/health') return { status: 200, body: {} };
      if (method !== 'POST' && method !== 'PUT') return validationError(`Method Not Allowed`, 405);
      if (path === '/classify' || path === '/encode') return native(body, () => `fake-${served++}`);
      if (path === '/v1/classify') return v1Classify(model, body);
      return { status: 404, body: { detail: 'Not Found' } };
    });
  }

  /** `--max-queued-requests` overflow: 503 with SGLang's HTTPException body. */
  static queueFull(): Fault {
    return {
      kind: 'status',
      status: 503,
      body: { object: 'error', message: 'The request queue is full.', type: '503', param: null, code: 503 },
    };
  }
}

/** Body validation failures: SGLang overrides FastAPI's 422 with a flat 400. */
function validationError(message: string, code = 400): Reply {
  return { status: code, body: { object: 'error', message, type: 'Bad Request', param: null, code } };
}

/** A ValueError raised by a native handler. */
function valueError(message: string): Reply {
  return { status: 400, body: { error: { message } } };
}

function native(body: unknown, nextId: () => string): Reply {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return validationError('body: expected an object');
  const { text, input_ids: inputIds } = body as { text?: unknown; input_ids?: unknown };
  if (text !== undefined && inputIds !== undefined) {
    return valueError('Either text or input_ids should be provided, not both.');
  }
  if (text === undefined) return valueError('The fake SGLang server scores text only; got no "text".');
  const single = typeof text === 'string';
  const texts = single ? [text] : text;
  if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
    return validationError('text: Input should be a valid string or list of strings');
  }
  const results = (texts as string[]).map((t) => ({
    embedding: [fakeLogit(t)],
    meta_info: {
      id: nextId(),
      finish_reason: { type: 'length', length: 0 },
      prompt_tokens: Math.ceil(t.length / 4),
      weight_version: 'default',
      e2e_latency: 0.001,
    },
  }));
  return { status: 200, body: single ? results[0] : results };
}

function v1Classify(model: string, body: unknown): Reply {
  const input = (body as { input?: unknown } | null)?.input;
  const inputs = typeof input === 'string' ? [input] : Array.isArray(input) ? input : null;
  if (inputs === null) return validationError('input: Field required');
  return {
    status: 200,
    body: {
      id: 'classify-fake',
      object: 'list',
      created: 1767225600,
      model,
      data: inputs.map((_, index) => ({ index, label: 'LABEL_0', probs: [1.0], num_classes: 1 })),
      usage: { prompt_tokens: 0, total_tokens: 0, completion_tokens: 0 },
    },
  };
}
