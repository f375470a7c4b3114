import type { Server } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { shapeGroups } from '../../core/groups';
import type { Sample, ScoreResult } from '../../core/sample';
import { RequestRefused, type Engine } from '../engine/engine';
import type { Metrics } from '../metrics';
import { groupToJson, resultToJson } from '../wire/json';
import { scoreRequestFromJson } from '../wire/request';
import { trainerRoutes } from './trainers';

/** Scores the samples of one HTTP request; null once a refusal or failure has been answered. */
export type ScoreFor = (req: Request, res: Response, samples: readonly Sample[], api: string) => Promise<ScoreResult[] | null>;

export const MAX_BODY = '256mb';

const REFUSAL_STATUS: Record<RequestRefused['kind'], number> = {
  batch_too_large: 413,
  overloaded: 429,
  shutting_down: 503,
};

function sendError(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ error: { code, message } });
}

/** The HTTP face of the Score API: the same request and response as the gRPC Score call, as JSON. */
export function createGateway(engine: Engine, metrics: Metrics, isServing: () => boolean): express.Express {
  const app = express();
  app.disable('x-powered-by');

  app.get('/healthz', (_req, res) => {
    if (isServing()) res.json({ status: 'SERVING' });
    else res.status(503).json({ status: 'NOT_SERVING' });
  });

  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  app.get('/v1/verifiers', (_req, res) => {
    res.json({ verifiers: engine.registry.list() });
  });

  /**
   * Scores for one HTTP request: cancelled when the client goes away; a refusal is answered here and
   * gives null, so each route only shapes a successful answer.
   */
  const scoreFor: ScoreFor = async (req, res, samples, api) => {
    const timer = metrics.requestSeconds.startTimer({ api });
    const controller = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) controller.abort('cancelled');
    };
    res.on('close', onClose);
    try {
      const results = await engine.score(samples, { signal: controller.signal });
      timer();
      return results;
    } catch (error) {
      if (error instanceof RequestRefused) {
        metrics.refused.inc({ reason: error.kind });
        if (error.kind === 'overloaded') res.setHeader('Retry-After', '1');
        sendError(res, REFUSAL_STATUS[error.kind], error.kind.toUpperCase(), error.message);
      } else {
        sendError(res, 500, 'INTERNAL', error instanceof Error ? error.message : String(error));
      }
      return null;
    }
  };

  app.post('/v1/score', express.json({ limit: MAX_BODY }), async (req: Request, res: Response) => {
    const parsed = scoreRequestFromJson(req.body);
    if (!parsed.ok) return sendError(res, 400, 'INVALID_ARGUMENT', parsed.error);
    const results = await scoreFor(req, res, parsed.samples, 'http.score');
    if (!results) return;
    const shaped = shapeGroups(parsed.samples, results, parsed.groupOptions);
    res.json({ results: shaped.results.map(resultToJson), groups: shaped.groups.map(groupToJson) });
  });

  app.use(trainerRoutes(scoreFor, MAX_BODY, metrics.registry));

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

export function listen(app: express.Express, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(server)));
  });
}
