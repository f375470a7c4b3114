import { statusOf } from '../core/status';
import * as grpc from '@grpc/grpc-js';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { logRequest, REQUEST_ID_KEY, requestIdFrom, StatusCounts, type Logger } from './log';
import type { GroupVerdict, Metrics } from './metrics';
import { asBatch } from './engine/batch';
import type { DecodedRequest, ScannedRequest } from './wire/binary';

/**
 * One log line per request, a request id both ways, and group metrics, for the gRPC server (an
 * interceptor) and the HTTP gateway (a middleware): the handlers stay free of logging.
 */

const SCORER_PREFIX = '/verdict.v1.Scorer/';

/** Proto status names: `UNAVAILABLE`, not 14. */
const GRPC_CODE_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(grpc.status)
    .filter(([, value]) => typeof value === 'number')
    .map(([name, value]) => [value as number, name]),
);

/** The keys a trainer puts a sample's finish reason under (vLLM/SGLang `finish_reason`, camelCase too). */
const FINISH_KEYS = ['finish_reason', 'finishReason'] as const;

function jsonFinishReason(metadata: unknown): string | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  for (const key of FINISH_KEYS) {
    const value = (metadata as Record<string, unknown>)[key];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

function defined<T>(values: Array<T | undefined>): T[] {
  return values.filter((v): v is T => v !== undefined);
}

/** `STATUS_OK` → `OK`: the log names statuses as the domain and the HTTP API do. */
function statusName(status: string | undefined): string {
  return statusOf(status) ?? String(status).replace(/^STATUS_/, '');
}

/** `grpc.Score`, `grpc.ScoreStream`, … : the same api names as `verdict_request_seconds`. */
function grpcApi(path: string): string {
  return `grpc.${path.slice(path.lastIndexOf('/') + 1)}`;
}

/** A ScoreRequest as services/grpc/service.ts reads it (decoded whole, or scanned), or the marker of bytes that were not one. */
type GrpcScoreRequest = Partial<DecodedRequest | ScannedRequest> | undefined;

/** A Score reply, or one ScoreStream item (a result, the last of its group carrying the summary). */
interface GrpcScoreReply {
  results?: ReadonlyArray<{ status?: string }>;
  groups?: readonly GroupVerdict[];
  result?: { status?: string };
  group?: GroupVerdict | null;
}

/**
 * Logs each Scorer call when it ends (api, request id, samples, results per status, gRPC status,
 * duration) and returns the request id in the response headers and trailers. Health checks and
 * reflection are logged at debug level only: probes every few seconds would drown the log.
 */
export function grpcRequestLog(logger: Logger, metrics: Metrics): grpc.ServerInterceptor {
  return (method, call) => {
    const started = performance.now();
    const scorer = method.path.startsWith(SCORER_PREFIX);
    let requestId = '';
    let samples = 0;
    let shaped = false;
    const statuses = new StatusCounts();
    const groups: GroupVerdict[] = [];
    let logged = false;
    // Once per call: at its status, or when the client cancels (then no status is sent).
    const finish = (code: grpc.status, details: string | undefined) => {
      if (logged) return;
      logged = true;
      const record = {
        api: grpcApi(method.path),
        requestId,
        samples,
        statuses: statuses.counts,
        outcome: GRPC_CODE_NAMES[code] ?? String(code),
        durationMs: performance.now() - started,
        ...(code !== grpc.status.OK && details ? { error: details } : {}),
      };
      if (scorer) {
        logRequest(logger, record);
        if (shaped && code === grpc.status.OK) metrics.onGroups(groups);
      } else {
        logger.debug(record, 'request');
      }
    };
    const withId = (metadata: grpc.Metadata) => {
      if (requestId !== '') metadata.set(REQUEST_ID_KEY, requestId);
      return metadata;
    };
    return new grpc.ServerInterceptingCall(call, {
      start(next) {
        next({
          onReceiveMetadata(metadata, nextMetadata) {
            const incoming = metadata.get(REQUEST_ID_KEY)[0];
            requestId = requestIdFrom(typeof incoming === 'string' ? incoming : undefined);
            nextMetadata(metadata);
          },
          onReceiveMessage(message: GrpcScoreRequest, nextMessage) {
            if (scorer && message?.samples) {
              samples = asBatch(message.samples).routes.length;
              shaped = message.groupOptions?.ok === true;
              // A request that shapes groups is decoded whole (services/grpc/service.ts): its metadata is there.
              if (shaped && Array.isArray(message.samples)) metrics.onFinishReasons(defined(message.samples.map((s) => jsonFinishReason(s.metadata))));
            }
            nextMessage(message);
          },
          onCancel() {
            finish(grpc.status.CANCELLED, 'cancelled by the client');
          },
        });
      },
      sendMetadata(metadata, next) {
        next(withId(metadata));
      },
      sendMessage(message: GrpcScoreReply, next) {
        if (scorer && message) {
          if (Array.isArray(message.results)) for (const result of message.results) statuses.add(statusName(result.status));
          else if (message.result) statuses.add(statusName(message.result.status));
          if (Array.isArray(message.groups)) groups.push(...message.groups);
          else if (message.group) groups.push(message.group);
        }
        next(message);
      },
      sendStatus(status, next) {
        finish(status.code ?? grpc.status.UNKNOWN, status.details);
        next({ ...status, metadata: withId(status.metadata ?? new grpc.Metadata()) });
      },
    });
  };
}

/** What a scoring route leaves for the request log (express `res.locals`). */
export interface ScoredLocals {
  results?: ReadonlyArray<{ status: string }>;
  groups?: readonly GroupVerdict[];
}

/** Stores a route's results where `httpRequestLog` finds them. */
export function noteResults(res: Response, results: ReadonlyArray<{ status: string }>, groups?: readonly GroupVerdict[]): void {
  (res.locals as ScoredLocals).results = results;
  if (groups) (res.locals as ScoredLocals).groups = groups;
}

const QUIET_PATHS = new Set(['/healthz', '/metrics']);

/**
 * Logs each HTTP request when its response is finished, with the request id taken from
 * `x-request-id` (or generated) and set on the response. Results per status come from the scoring
 * routes (`noteResults`); groups of a shaped `/v1/score` answer feed the group metrics.
 */
export function httpRequestLog(logger: Logger, metrics: Metrics): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    const requestId = requestIdFrom(req.get(REQUEST_ID_KEY));
    res.setHeader(REQUEST_ID_KEY, requestId);

    let logged = false;
    const done = () => {
      if (logged) return;
      logged = true;
      const { results, groups } = res.locals as ScoredLocals;
      const request = req.body as { samples?: unknown; groupOptions?: unknown; group_options?: unknown } | undefined;
      const shaped = request?.groupOptions !== undefined || request?.group_options !== undefined;
      if (shaped && res.writableFinished && res.statusCode < 400 && groups) {
        metrics.onGroups(groups);
        if (Array.isArray(request?.samples)) {
          metrics.onFinishReasons(defined((request.samples as Array<{ metadata?: unknown }>).map((s) => jsonFinishReason(s?.metadata))));
        }
      }
      const statuses = new StatusCounts();
      if (results) statuses.addAll(results);
      const body = req.body as { samples?: unknown } | undefined;
      const record = {
        api: `http ${req.method} ${req.path}`,
        requestId,
        samples: results?.length ?? (Array.isArray(body?.samples) ? body.samples.length : 0),
        statuses: statuses.counts,
        // 499: the client went away before the answer was sent (the convention nginx started).
        outcome: res.writableFinished ? res.statusCode : 499,
        durationMs: performance.now() - started,
      };
      if (QUIET_PATHS.has(req.path)) logger.debug(record, 'request');
      else logRequest(logger, record);
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}
