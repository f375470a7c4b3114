import { createServer, type Server } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { RequestRefused, type Engine } from '../engine/engine';
import type { ReplyResult } from '../engine/encoded';
import { Scorer, type ScoreCall, type Scored } from '../engine/scorer';
import type { Metrics } from '../metrics';
import { noteResults } from '../request-log';
import { scoreReplyJson } from '../wire/json';
import { scanJsonScoreRequest, type ScannedJsonRequest } from '../wire/json-scan';
import { scoreRequestFromJson } from '../wire/request';
import { trainerRoutes, type ScoreFor } from './trainers';
import type { TrainerDefaults } from './config';
import { AssetsMissing, playgroundPage } from '../../web/page';

export const MAX_BODY = '256mb';

/** A reply's worst case per character in JSON: a control character is escaped as six (`\u0001`). */
const REPLY_LIMIT = { maxBytes: 256 * 1024 * 1024, bytesPerChar: 6 };

/** Whitespace only (checked without copying a body of megabytes, as trim would). */
const BLANK = /^\s*$/;

/**
 * The body's text as JSON into `req.body`. An empty body is refused with a message saying so
 * (express.json hands the route an empty object, and /v1/score answered it with no results), and a
 * UTF-8 byte-order mark is accepted.
 */
function parseJsonText(text: string, req: Request, res: Response, next: NextFunction): void {
  const raw = text.replace(/^\uFEFF/, '');
  if (BLANK.test(raw)) return sendError(res, 400, 'INVALID_ARGUMENT', 'request: the body is empty (expected a JSON object with "samples")');
  try {
    req.body = JSON.parse(raw) as unknown;
  } catch (parseError) {
    return sendError(res, 400, 'INVALID_ARGUMENT', `request: not valid JSON (${(parseError as Error).message})`);
  }
  next();
}

/** Whether the content type names a charset other than UTF-8 (such a body is decoded from it and read in full). */
function otherCharset(contentType: string | undefined): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  return charset !== undefined && charset !== 'utf-8' && charset !== 'utf8';
}

/**
 * The /v1/score body, whatever its content type: a UTF-8 body is first scanned where it lies
 * (services/wire/json-scan.ts), its samples left in the bytes for the pool threads, into
 * `res.locals.scanned`; any other body is parsed in full into `req.body`.
 */
function scoreBody(limit: string) {
  const text = express.text({ type: () => true, limit });
  const bytes = express.raw({ type: () => true, limit });
  return (req: Request, res: Response, next: NextFunction) => {
    if (otherCharset(req.headers['content-type'])) {
      return text(req, res, (error?: unknown) => (error ? next(error) : parseJsonText(typeof req.body === 'string' ? req.body : '', req, res, next)));
    }
    bytes(req, res, (error?: unknown) => {
      if (error) return next(error);
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const scanned = scanJsonScoreRequest(body);
      if (scanned) {
        res.locals['scanned'] = scanned;
        return next();
      }
      parseJsonText(body.toString('utf8'), req, res, next);
    });
  };
}

const REFUSAL_STATUS: Record<RequestRefused['kind'], number> = {
  batch_too_large: 413,
  overloaded: 429,
  shutting_down: 503,
};

function sendError(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ error: { code, message } });
}

function sendPlayground(res: Response): void {
  let page: ReturnType<typeof playgroundPage>;
  try {
    page = playgroundPage();
  } catch (error) {
    if (error instanceof AssetsMissing) return sendError(res, 503, 'UNAVAILABLE', error.message);
    throw error;
  }
  res
    .type('html')
    .setHeader('Content-Security-Policy', `${page.policy}; frame-ancestors 'none'`)
    .setHeader('X-Content-Type-Options', 'nosniff')
    .setHeader('Referrer-Policy', 'no-referrer')
    .send(page.html);
}

/**
 * Runs one HTTP request's call on the Scorer: cancelled when the client goes away; a refusal is
 * answered here and gives null, so each route only shapes a successful answer.
 */
function scoreCaller(metrics: Metrics) {
  return async <R extends ReplyResult>(res: Response, api: string, run: (signal: AbortSignal) => Promise<Scored<R>>): Promise<Scored<R> | null> => {
    const timer = metrics.requestSeconds.startTimer({ api });
    const controller = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) controller.abort('cancelled');
    };
    res.on('close', onClose);
    try {
      const scored = await run(controller.signal);
      timer();
      noteResults(res, scored.results, scored.groups);
      return scored;
    } catch (error) {
      if (error instanceof RequestRefused) {
        metrics.refused.inc({ reason: error.kind });
        if (error.kind === 'overloaded') res.setHeader('Retry-After', '1');
        sendError(res, REFUSAL_STATUS[error.kind], error.kind.toUpperCase(), error.message);
      } else {
        sendError(res, 500, 'INTERNAL', error instanceof Error ? error.message : String(error));
      }
      return null;
    } finally {
      res.removeListener('close', onClose);
    }
  };
}

/** The HTTP face of the Score API: the same request and response as the gRPC Score call, as JSON. */
export function createGateway(
  engine: Engine,
  metrics: Metrics,
  isServing: () => boolean,
  ops: RequestHandler[] = [],
  trainerDefaults: TrainerDefaults = {},
): express.Express {
  const app = express();
  // Replies are answers to one POST, never revalidated: an ETag would cost a SHA-1 of every
  // (megabytes-long) reply body.
  app.set('etag', false);
  app.disable('x-powered-by');
  const scorer = new Scorer(engine);
  // The operator side first: request log and id, then authentication.
  if (ops.length > 0) app.use(...ops);

  app.get('/healthz', (_req, res) => {
    if (isServing()) res.json({ status: 'SERVING' });
    else res.status(503).json({ status: 'NOT_SERVING' });
  });

  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  // The playground (docs/playground.md): a static page that holds nothing; its API calls carry the token.
  app.get('/', (_req, res) => sendPlayground(res));

  app.get('/v1/verifiers', (_req, res) => {
    // As `verdict verifiers --json` prints them: labelSchema an object (the gRPC message carries it as text), and each example.
    res.json({ verifiers: engine.registry.cards() });
  });

  const scoreCall = scoreCaller(metrics);

  // Trainer answers read details: their calls get whole results (no `format`).
  const scoreFor: ScoreFor = async (_req, res, samples, api) =>
    (await scoreCall(res, api, (signal) => scorer.score({ samples, groupOptions: null, signal, reply: REPLY_LIMIT })))?.results ?? null;

  app.post('/v1/score', scoreBody(MAX_BODY), async (req: Request, res: Response) => {
    const scanned = res.locals['scanned'] as ScannedJsonRequest | undefined;
    let call: Omit<ScoreCall, 'signal' | 'reply'>;
    if (scanned) call = { samples: scanned.samples, groupOptions: null, format: 'json' };
    else {
      const parsed = scoreRequestFromJson(req.body);
      if (!parsed.ok) return sendError(res, 400, 'INVALID_ARGUMENT', parsed.error);
      const { samples, rejected, groupOptions } = parsed;
      call = { samples, rejected, groupOptions, format: 'json' };
    }
    const scored = await scoreCall(res, 'http.score', (signal) => scorer.score({ ...call, signal, reply: REPLY_LIMIT }));
    if (!scored) return;
    res.type('application/json').send(scoreReplyJson(scored.results, scored.groups));
  });

  app.use(trainerRoutes(scoreFor, MAX_BODY, metrics.registry, undefined, trainerDefaults));

  // express.json's own errors: a body that is not JSON, or too large.
  app.use((error: { status?: number; type?: string; message?: string }, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    if (error.type === 'entity.too.large') return sendError(res, 413, 'TOO_LARGE', `request: body exceeds ${MAX_BODY}`);
    if (error.type === 'entity.parse.failed') return sendError(res, 400, 'INVALID_ARGUMENT', `request: not valid JSON (${error.message})`);
    return sendError(res, error.status ?? 500, 'INTERNAL', error.message ?? 'internal error');
  });

  app.use((_req, res) => sendError(res, 404, 'NOT_FOUND', 'no such route'));
  return app;
}

/** How long a client may take and how many may connect: a service, not a file server. */
export interface HttpLimits {
  /** Until the request's headers are in (Node's own default is 60 s). */
  headersTimeoutMs: number;
  /** Until the whole request, body included, is in: a 256 MiB body at ~4.5 MB/s (Node's default is 300 s). */
  requestTimeoutMs: number;
  /** Idle time allowed on a keep-alive connection between requests. */
  keepAliveTimeoutMs: number;
  /** Open connections; past it a new one is closed at once. */
  maxConnections: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1024,
};

export function listen(app: express.Express, host: string, port: number, limits: Partial<HttpLimits> = {}): Promise<Server> {
  const l = { ...DEFAULT_HTTP_LIMITS, ...limits };
  const server = createServer(
    {
      headersTimeout: l.headersTimeoutMs,
      requestTimeout: l.requestTimeoutMs,
      keepAliveTimeout: l.keepAliveTimeoutMs,
      // How often Node looks for connections past those timeouts (its default, 30 s, would let a stalled
      // upload outlive a short timeout by that much).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, l.headersTimeoutMs / 4)),
    },
    app,
  );
  server.maxConnections = l.maxConnections;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.removeListener('error', reject);
      resolve(server);
    });
  });
}
