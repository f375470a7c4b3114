import type * as grpc from '@grpc/grpc-js';
import type { RequestHandler } from 'express';
import type { Registry } from '../core/registry';
import { grpcAuth, grpcServerCredentials, httpAuth, type TlsFiles } from './auth';
import type { VerdictConfig } from './config';
import type { EngineObserver } from './engine/engine';
import type { GrpcServerOps } from './grpc/server';
import { ServiceFailureLog, silentLogger, type Logger } from './log';
import { Metrics } from './metrics';
import { watchOutbound } from './outbound';
import { grpcRequestLog, httpRequestLog } from './request-log';
import { sameOriginOnly } from './http/same-origin';
import { packageVersion } from './version';

export interface OperatorOptions {
  /** Request lines, service warnings, start-up and shutdown; nothing is logged when absent. */
  logger?: Logger;
  /** Bearer token every call but health must carry; null or absent: no authentication. */
  authToken?: string | null;
  /** PEM files for gRPC over TLS; absent: plaintext. */
  tls?: TlsFiles | null;
  /**
   * Without a token, browser pages of other origins are refused (services/http/same-origin.ts); these
   * origins (`https://dash.example:3000`) are let through.
   */
  allowOrigins?: readonly string[];
}

/** Which services the config turns on, by name: what the start-up line tells an operator. */
function configuredServices(config: VerdictConfig): Record<string, string[] | boolean> {
  return {
    sandbox: config.sandbox !== undefined,
    judge: Object.keys(config.judge?.endpoints ?? {}),
    rewardModel: Object.keys(config.rewardModel?.endpoints ?? {}),
    jsIsolate: true,
  };
}

/**
 * The operator's side of one server, composed in one place: metrics, logs (requests, failing
 * services, start-up), who may call (bearer token, TLS). The server hands its pieces to the engine,
 * the gRPC server and the HTTP gateway.
 */
export class OperatorSide {
  readonly logger: Logger;
  readonly metrics = new Metrics();
  private readonly failures: ServiceFailureLog;
  private readonly token: string | null;
  private readonly credentials: grpc.ServerCredentials;

  /** Reads the TLS files now, so a bad one fails before any service starts. */
  constructor(private readonly options: OperatorOptions) {
    this.logger = options.logger ?? silentLogger;
    this.failures = new ServiceFailureLog(this.logger);
    this.token = options.authToken ?? null;
    this.credentials = grpcServerCredentials(options.tls ?? null);
  }

  /** Every result feeds the metrics and, when a service failed it, the rate-limited warning. */
  readonly observer: EngineObserver = {
    onResult: (result, seconds, waitedSeconds) => {
      this.metrics.onResult(result, seconds, waitedSeconds);
      this.failures.onResult(result);
    },
  };

  /** Interceptors (request log first, so refused calls are logged too; then auth) and credentials. */
  grpc(): GrpcServerOps {
    return {
      interceptors: [grpcRequestLog(this.logger, this.metrics), ...(this.token !== null ? [grpcAuth(this.token)] : [])],
      credentials: this.credentials,
    };
  }

  /** Middleware in front of every route, in the same order; without a token, the cross-site defence instead. */
  http(): RequestHandler[] {
    return [httpRequestLog(this.logger, this.metrics), this.token !== null ? httpAuth(this.token) : sameOriginOnly(this.options.allowOrigins)];
  }

  private unwatch: () => void = () => {};

  /**
   * The start-up line (where it listens, what it serves, which services and protections are on);
   * from now on the reward-model endpoints' HTTP requests are counted.
   */
  started(at: { host: string; grpcPort: number; httpPort: number | null; workers: number; registry: Registry; config: VerdictConfig }): void {
    const endpoints = Object.entries(at.config.rewardModel?.endpoints ?? {}).map(([name, endpoint]) => ({ name, url: endpoint.url }));
    this.unwatch = watchOutbound(endpoints, this.metrics.rewardModel);
    const where = at.httpPort === null ? 'no HTTP' : `HTTP on ${at.host}:${at.httpPort}`;
    const tls = this.options.tls;
    this.logger.info(
      {
        version: packageVersion(),
        host: at.host,
        grpcPort: at.grpcPort,
        httpPort: at.httpPort,
        workers: at.workers,
        verifiers: at.registry.list().map((v) => `${v.name}@${v.version}`),
        services: configuredServices(at.config),
        auth: this.token !== null ? 'bearer' : 'none',
        tls: tls ? (tls.clientCaFile !== undefined ? 'mutual' : 'server') : 'none',
      },
      `serving: gRPC on ${at.host}:${at.grpcPort}, ${where}, ${at.workers} workers`,
    );
  }

  /** The server has stopped: stop counting, say so. */
  stopped(): void {
    this.unwatch();
    this.logger.info('stopped');
  }
}
