import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isJsonObject, type Json, type JsonObject } from '../../core/json';

/**
 * A fake OpenAI-compatible chat-completions server (vLLM/SGLang flavour) on loopback, for tests and
 * the judge benchmark. It speaks the wire format of ../shared/reference/wire-protocols.md §2:
 * request checks with 400s in the nested error shape, replies with `reasoning_content`, and the
 * faults a real judge shows: 429 with Retry-After, 5xx in either vLLM error shape, slow replies,
 * malformed and schema-violating JSON, and connection resets. It grades deterministically, counts
 * calls and records the peak number of requests in flight.
 */

export type Fault =
  /** An HTTP error; `shape` picks vLLM ≥ 0.10.1's nested body or the older flat one. */
  | { kind: 'status'; status: number; shape?: 'nested' | 'flat'; headers?: Record<string, string>; message?: string }
  /** The graded reply, sent after `delayMs`. */
  | { kind: 'slow'; delayMs: number }
  /** Content cut off mid-JSON, `finish_reason: "length"`. */
  | { kind: 'malformed' }
  /** Valid JSON that does not fit the requested schema (a field missing, a number out of range). */
  | { kind: 'schema_violation' }
  /** The socket is destroyed without a response. */
  | { kind: 'reset' }
  /** The graded reply inside `<think>…</think>` text, with misleading JSON in `reasoning`/`reasoning_content`. */
  | { kind: 'think' };

export interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  schemaName: string;
  schema: JsonObject;
  body: JsonObject;
  headers: IncomingMessage['headers'];
}

/** Produces the reply object for a request; deterministic for the fixtures. */
export type Grader = (request: ChatRequest) => JsonObject;

export interface FakeOpenAIServerOptions {
  /** The model the server serves; other names get a 404 `model_not_found`. */
  model?: string;
  /** Every reply waits this long (lets concurrency build up in tests). */
  replyDelayMs?: number;
  grader?: Grader;
}

/** The text between `<tag>` and `</tag>` in the last user message, or null. */
export function tagged(request: ChatRequest, tag: string): string | null {
  const user = [...request.messages].reverse().find((m) => m.role === 'user');
  const m = new RegExp(`<${tag}>\\n?([\\s\\S]*?)\\n?</${tag}>`).exec(user?.content ?? '');
  return m?.[1] ?? null;
}

const normalize = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/**
 * Fixture grading. Answer scoring (schema with `score`): 1 for a normalized exact match of
 * `<response>` and `<correct_answer>`, else for a list answer (items on lines or split by ";") the
 * fraction of items the response names, else 0. Rubrics (schema with `satisfied`): `mention "X"` is
 * satisfied when the response contains X, `avoid "X"` when it does not.
 */
export const fixtureGrader: Grader = (request): JsonObject => {
  const properties = request.schema['properties'];
  if (isJsonObject(properties) && 'score' in properties) {
    const gold = tagged(request, 'correct_answer') ?? '';
    const answer = normalize(tagged(request, 'response') ?? '');
    if (normalize(gold) === answer) return { reasoning: 'exact match', score: 1 };
    const items = gold.split(/\n|;/).map((s) => normalize(s.replace(/^\s*[-*]\s*/, ''))).filter((s) => s !== '');
    if (items.length > 1) {
      const found = items.filter((item) => ` ${answer} `.includes(` ${item} `)).length;
      return { reasoning: `${found} of ${items.length} items`, score: found / items.length };
    }
    return { reasoning: 'no match', score: 0 };
  }
  if (isJsonObject(properties) && 'satisfied' in properties) {
    const rubric = tagged(request, 'rubric') ?? '';
    const response = (tagged(request, 'response') ?? '').toLowerCase();
    const mention = /mention\w*\s+"([^"]+)"/i.exec(rubric);
    if (mention?.[1]) {
      const ok = response.includes(mention[1].toLowerCase());
      return { reason: ok ? `mentions ${mention[1]}` : `does not mention ${mention[1]}`, satisfied: ok };
    }
    const avoid = /avoid\w*\s+"([^"]+)"/i.exec(rubric);
    if (avoid?.[1]) {
      const ok = !response.includes(avoid[1].toLowerCase());
      return { reason: ok ? `avoids ${avoid[1]}` : `contains ${avoid[1]}`, satisfied: ok };
    }
    return { reason: 'no fixture rule in rubric', satisfied: false };
  }
  throw new Error(`fake server: no fixture grading for schema "${request.schemaName}"`);
};

/** Breaks a reply against its schema: drops the first required field. */
function violate(reply: JsonObject, schema: JsonObject): JsonObject {
  const required = Array.isArray(schema['required']) ? schema['required'] : [];
  const first = required.find((r): r is string => typeof r === 'string');
  const { [first ?? '']: _dropped, ...rest } = reply;
  void _dropped;
  return first === undefined ? { unexpected: true } : rest;
}

export class FakeOpenAIServer {
  /** Chat-completion requests received (faulted ones included). */
  calls = 0;
  /** Most requests in flight at once. */
  peakConcurrency = 0;
  /** Bodies of the requests received, in arrival order. */
  readonly requests: ChatRequest[] = [];
  /** `performance.now()` at each request's arrival. */
  readonly arrivals: number[] = [];
  /** Faults applied to the next requests, one each, in order. */
  readonly faults: Fault[] = [];
  /** Chooses a fault for a request by its content (after the queue); undefined for a normal reply. */
  faultFor?: (request: ChatRequest) => Fault | undefined;
  replyDelayMs: number;
  grader: Grader;

  private active = 0;
  private server?: Server;
  private readonly timers = new Set<NodeJS.Timeout>();
  private created = 1767225600;

  constructor(private readonly options: FakeOpenAIServerOptions = {}) {
    this.replyDelayMs = options.replyDelayMs ?? 0;
    this.grader = options.grader ?? fixtureGrader;
  }

  get model(): string {
    return this.options.model ?? 'Qwen/Qwen3-32B';
  }

  /** Starts listening on a free loopback port; resolves with the base URL (`http://127.0.0.1:N/v1`). */
  async start(): Promise<string> {
    const server = createServer((req, res) => this.handle(req, res));
    server.keepAliveTimeout = 5_000;
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  resetCounts(): void {
    this.calls = 0;
    this.peakConcurrency = 0;
    this.requests.length = 0;
    this.arrivals.length = 0;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        return this.error(res, 404, 'nested', `no route ${req.method} ${req.url}`, {}, 'NotFoundError');
      }
      this.calls++;
      this.arrivals.push(performance.now());
      this.active++;
      this.peakConcurrency = Math.max(this.peakConcurrency, this.active);
      let finished = false;
      const done = () => {
        if (!finished) {
          finished = true;
          this.active--;
        }
      };
      res.on('close', done);
      this.respond(Buffer.concat(chunks).toString('utf8'), req, res);
    });
  }

  private respond(text: string, req: IncomingMessage, res: ServerResponse): void {
    const parsed = this.parseRequest(text, req);
    if (typeof parsed === 'string') return this.error(res, 400, 'nested', parsed, {}, 'BadRequestError');
    this.requests.push(parsed);
    if (parsed.model !== this.model) {
      return this.error(res, 404, 'nested', `The model \`${parsed.model}\` does not exist.`, {}, 'NotFoundError');
    }
    const fault = this.faults.shift() ?? this.faultFor?.(parsed);
    if (fault?.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'status') {
      const type = fault.status === 429 ? 'RateLimitError' : fault.status >= 500 ? 'InternalServerError' : 'BadRequestError';
      return this.error(res, fault.status, fault.shape ?? 'nested', fault.message ?? `fake ${fault.status}`, fault.headers ?? {}, type);
    }
    const delay = fault?.kind === 'slow' ? fault.delayMs : this.replyDelayMs;
    const send = () => {
      if (res.destroyed) return;
      let reply: JsonObject;
      try {
        reply = this.grader(parsed);
      } catch (error) {
        return this.error(res, 400, 'nested', (error as Error).message, {}, 'BadRequestError');
      }
      let content = JSON.stringify(reply);
      let finish = 'stop';
      let reasoning: string | null = null;
      if (fault?.kind === 'malformed') {
        content = content.slice(0, Math.max(1, Math.floor(content.length / 2)));
        finish = 'length';
      } else if (fault?.kind === 'schema_violation') {
        content = JSON.stringify(violate(reply, parsed.schema));
      } else if (fault?.kind === 'think') {
        reasoning = 'Thinking... maybe {"score": 0, "satisfied": false}';
        content = `<think>${reasoning}</think>\n\n${content}`;
      }
      this.json(res, 200, this.completion(parsed, content, finish, reasoning), {});
    };
    if (delay <= 0) return send();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      send();
    }, delay);
    this.timers.add(timer);
    res.on('close', () => {
      clearTimeout(timer);
      this.timers.delete(timer);
    });
  }

  /** The request's fields, or the message of the 400 a server would give. */
  private parseRequest(text: string, req: IncomingMessage): ChatRequest | string {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return 'request body is not valid JSON';
    }
    if (!isJsonObject(body)) return 'request body must be an object';
    const { model, messages, response_format: format } = body;
    if (typeof model !== 'string') return 'model: field required';
    if (!Array.isArray(messages) || messages.length === 0) return 'messages: field required';
    const chat: ChatRequest['messages'] = [];
    for (const [i, m] of messages.entries()) {
      if (!isJsonObject(m) || typeof m['role'] !== 'string' || typeof m['content'] !== 'string') {
        return `messages.${i}: expected {role, content}`;
      }
      chat.push({ role: m['role'], content: m['content'] });
    }
    if (!isJsonObject(format) || format['type'] !== 'json_schema') return 'response_format: expected type "json_schema"';
    const spec = format['json_schema'];
    if (!isJsonObject(spec) || typeof spec['name'] !== 'string' || !isJsonObject(spec['schema'])) {
      return 'response_format.json_schema: expected {name, schema}';
    }
    if (spec['strict'] !== true) return 'response_format.json_schema.strict: expected true';
    if (body['stream'] === true) return 'stream: not supported by this fake';
    return { model, messages: chat, schemaName: spec['name'], schema: spec['schema'], body, headers: req.headers };
  }

  private completion(request: ChatRequest, content: string, finish: string, reasoning: string | null): JsonObject {
    const promptTokens = request.messages.reduce((n, m) => n + Math.ceil(m.content.length / 4), 0);
    const completionTokens = Math.ceil(content.length / 4);
    return {
      id: `chatcmpl-fake${this.calls}`,
      object: 'chat.completion',
      created: this.created,
      model: request.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, reasoning, reasoning_content: reasoning, tool_calls: null },
          logprobs: null,
          finish_reason: finish,
          matched_stop: finish === 'stop' ? 151645 : null,
        },
      ],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    };
  }

  private error(
    res: ServerResponse,
    status: number,
    shape: 'nested' | 'flat',
    message: string,
    headers: Record<string, string>,
    type: string,
  ): void {
    const error: JsonObject = { message, type, param: null, code: status };
    this.json(res, status, shape === 'flat' ? { object: 'error', ...error } : { error }, headers);
  }

  private json(res: ServerResponse, status: number, body: Json, headers: Record<string, string>): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }
}
