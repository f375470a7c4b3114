import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Shared plumbing of the fake SGLang and vLLM reward-model servers: real HTTP on loopback, a
 * deterministic "logit" computed from the text the model would see, a log of every request, and
 * scripted faults (HTTP errors, stalls, dropped connections, malformed bodies) for the next requests.
 */

/**
 * The fake model: a text holding `[[rm:<number>]]` scores that number (the last marker wins), so
 * a test can choose the logit exactly; any other text scores a hash of itself in [-10, 10] in
 * steps of 1/32, so different renderings of a conversation score differently.
 */
export function fakeLogit(text: string): number {
  const markers = [...text.matchAll(/\[\[rm:(-?\d+(?:\.\d+)?)\]\]/g)];
  const last = markers[markers.length - 1];
  if (last?.[1] !== undefined) return Number(last[1]);
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return ((hash % 641) - 320) / 32;
}

export type Fault =
  | { kind: 'status'; status: number; body: unknown; headers?: Record<string, string> }
  /** Never answers; the client must time out. */
  | { kind: 'stall' }
  /** Closes the connection without an answer. */
  | { kind: 'drop' }
  /** Answers 200 with this raw body. */
  | { kind: 'raw'; body: string };

export interface Reply {
  status: number;
  body: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
}

export type Handler = (method: string, path: string, body: unknown) => Reply;

export class FakeHttpServer {
  readonly requests: RecordedRequest[] = [];
  private readonly faults: Fault[] = [];
  private readonly server: http.Server;
  /** Added to every answer, to model the time a forward pass takes. */
  latencyMs = 0;
  /** Most requests this server held open at the same time. */
  maxInFlight = 0;
  private inFlight = 0;

  constructor(handler: Handler) {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text === '' ? undefined : JSON.parse(text);
        } catch {
          body = text;
        }
        const path = (req.url ?? '/').split('?')[0]!;
        this.requests.push({ method: req.method ?? 'GET', path, body });
        this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
        res.on('close', () => this.inFlight--);
        const fault = this.faults.shift();
        if (fault?.kind === 'stall') return;
        if (fault?.kind === 'drop') return void req.socket.destroy();
        const send = () => {
          if (fault?.kind === 'raw') {
            res.writeHead(200, { 'content-type': 'application/json' }).end(fault.body);
          } else if (fault?.kind === 'status') {
            res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
            res.end(JSON.stringify(fault.body));
          } else {
            const reply = handler(req.method ?? 'GET', path, body);
            res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
          }
        };
        if (this.latencyMs > 0) setTimeout(send, this.latencyMs);
        else send();
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next `times` requests get `fault` instead of an answer. */
  inject(fault: Fault, times = 1): void {
    for (let i = 0; i < times; i++) this.faults.push(fault);
  }

  /** Requests to a path (e.g. "/classify"), in arrival order. */
  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
