import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake OpenAI-compatible `POST /v1/embeddings` server on loopback, in the wire format vLLM,
 * SGLang, TEI and OpenAI serve: `{"model","input": string | string[], "encoding_format":
 * "float"|"base64", "dimensions"?}` in, `{"id","object":"list","created","model","data":[{"index",
 * "object":"embedding","embedding"}],"usage":{"prompt_tokens","total_tokens"}}` out, errors in the
 * nested `{"error":{…}}` shape or SGLang's flat one. Its vectors are a hashed bag of words, so a
 * problem reformatted (other spacing, punctuation, LaTeX markup, case) lands near its original and
 * an unrelated one far away. Faults are queued per request: an HTTP error (429 with Retry-After),
 * a slow reply, vectors of the wrong size, a reply with too few vectors, a reset connection.
 */

export type EmbeddingFault =
  | { kind: 'status'; status: number; shape?: 'nested' | 'flat'; headers?: Record<string, string>; message?: string }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'dims'; dims: number }
  | { kind: 'short' }
  | { kind: 'reset' };

export interface EmbeddingRequest {
  model: string;
  input: string[];
  body: Record<string, unknown>;
}

/** Lower-cased runs of letters and digits: what a request's usage counts. */
const tokens = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Words that say nothing of a problem's content, left out of the bag as a real model would weigh them little. */
const STOP = new Set(['the', 'of', 'a', 'an', 'and', 'or', 'to', 'in', 'is', 'are', 'that', 'its', 'it', 'by', 'for', 'on', 'at', 'as', 'be', 'with', 'this', 'all', 'find', 'let', 'given', 'what', 'which', 'answer']);

/** The hashed bag-of-words vector of a text, L2-normalized (all zeros for a text without words). */
export function bagOfWords(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const t of tokens(text)) {
    if (STOP.has(t)) continue;
    const h = createHash('sha256').update(t).digest();
    v[h.readUInt32BE(0) % dims]! += h[4]! & 1 ? 1 : -1;
  }
  const norm = Math.hypot(...v);
  return norm === 0 ? v : v.map((x) => x / norm);
}

export class FakeEmbeddingsServer {
  private server: Server | null = null;
  readonly requests: EmbeddingRequest[] = [];
  readonly faults: EmbeddingFault[] = [];
  inFlight = 0;
  peakInFlight = 0;
  /** Called as each request arrives (after it is recorded), before it is answered. */
  onRequest: ((request: EmbeddingRequest, count: number) => void) | null = null;

  constructor(
    readonly options: { model?: string; dims?: number; replyDelayMs?: number } = {},
  ) {}

  get model(): string {
    return this.options.model ?? 'fake-embed';
  }

  get dims(): number {
    return this.options.dims ?? 256;
  }

  /** Every text the server was sent, in order. */
  get texts(): string[] {
    return this.requests.flatMap((r) => r.input);
  }

  async start(): Promise<string> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  private error(res: ServerResponse, status: number, message: string, shape: 'nested' | 'flat' = 'nested', headers: Record<string, string> = {}, code: string | number | null = null): void {
    const type = status === 429 ? 'rate_limit_error' : status >= 500 ? 'InternalServerError' : 'BadRequestError';
    this.send(res, status, shape === 'flat' ? { object: 'error', message, type, param: null, code: code ?? status } : { error: { message, type, param: null, code } }, headers);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return this.error(res, 404, `no route ${req.method} ${req.url}`);
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return this.error(res, 400, 'Unsupported Media Type: Only application/json is allowed', 'flat');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      return this.error(res, 400, 'request body is not JSON', 'flat');
    }
    const input = typeof body['input'] === 'string' ? [body['input']] : body['input'];
    if (!Array.isArray(input) || input.length === 0 || !input.every((t) => typeof t === 'string')) return this.error(res, 400, 'input: expected a string or a non-empty array of strings', 'flat');
    if (input.some((t) => t === '')) return this.error(res, 400, 'input cannot be an empty string', 'flat');
    if (body['model'] !== this.model) return this.error(res, 404, `The model \`${String(body['model'])}\` does not exist.`, 'nested', {}, 'model_not_found');
    const format = body['encoding_format'] ?? 'float';
    if (format !== 'float' && format !== 'base64') return this.error(res, 400, `encoding_format: expected "float" or "base64", got ${JSON.stringify(format)}`, 'flat');
    const request: EmbeddingRequest = { model: this.model, input: input as string[], body };
    this.requests.push(request);
    this.inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    try {
      this.onRequest?.(request, this.requests.length);
      const fault = this.faults.shift();
      const delay = (fault?.kind === 'slow' ? fault.delayMs : 0) + (this.options.replyDelayMs ?? 0);
      // Unref'd: a reply still held when the test closes the server keeps no process alive.
      if (delay > 0) await new Promise((r) => setTimeout(r, delay).unref());
      if (fault?.kind === 'reset') return void req.socket.destroy();
      if (fault?.kind === 'status') return this.error(res, fault.status, fault.message ?? `fault ${fault.status}`, fault.shape ?? 'nested', fault.headers ?? {});
      const wanted = typeof body['dimensions'] === 'number' ? body['dimensions'] : null;
      if (wanted !== null && (wanted < 1 || wanted > this.dims)) return this.error(res, 400, `dimensions: ${wanted} is not supported by this model`, 'flat');
      const dims = fault?.kind === 'dims' ? fault.dims : (wanted ?? this.dims);
      const texts = fault?.kind === 'short' ? (input as string[]).slice(1) : (input as string[]);
      const data = texts.map((text, index) => {
        const v = bagOfWords(text, dims);
        const embedding = format === 'base64' ? Buffer.from(Float32Array.from(v).buffer).toString('base64') : v;
        return { index, object: 'embedding', embedding };
      });
      const promptTokens = texts.reduce((a, t) => a + tokens(t).length, 0);
      this.send(res, 200, { id: `embd-${createHash('sha256').update(String(this.requests.length)).digest('hex').slice(0, 16)}`, object: 'list', created: Math.floor(Date.now() / 1000), model: this.model, data, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens, completion_tokens: 0, prompt_tokens_details: null } });
    } finally {
      this.inFlight--;
    }
  }
}
