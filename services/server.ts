import type { Server as HttpServer } from 'node:http';
import type { VerdictConfig } from './config';
import type { Engine, EngineLimits } from './engine/engine';
import { openRuntime } from './runtime';
import { startGrpcServer } from './grpc/server';
import { createGateway, listen } from './http/gateway';
import { grpcAuth, grpcServerCredentials, httpAuth, type TlsFiles } from './auth';
import { ServiceFailureLog, silentLogger, type Logger } from './log';
import { Metrics } from './metrics';
import { grpcRequestLog, httpRequestLog } from './request-log';
import { packageVersion } from './version';

export interface ServeOptions {
  host: string;
  grpcPort: number;
  /** 0 picks a free port; null serves no HTTP gateway. */
  httpPort: number | null;
  /** Worker threads; 0 scores pure verifiers on the main thread. */
  workers: number;
  config: VerdictConfig;
  limits?: Partial<EngineLimits>;
  /** How long in-flight batches may run on after a shutdown starts. */
  drainMs?: number;
  /** A module exporting `createRegistry()`; the verifiers Verdict serves unless a test says otherwise. */
  registryModule?: string;
  /** Request lines, service warnings, start-up and shutdown; nothing is logged when absent. */
  logger?: Logger;
  /** Bearer token every call but health must carry; null or absent: no authentication. */
  authToken?: string | null;
  /** PEM files for gRPC over TLS; absent: plaintext. */
  tls?: TlsFiles | null;
}

export interface RunningServer {
  grpcPort: number;
  httpPort: number | null;
  engine: Engine;
  /** Stops accepting, finishes or aborts in-flight work, stops the listeners and services. */
  shutdown(): Promise<void>;
}

/** Which services the config turns on, by name: what a start-up line tells an operator. */
function configuredServices(config: VerdictConfig): Record<string, string[] | boolean> {
  return {
    sandbox: config.sandbox !== undefined,
    judge: Object.keys(config.judge?.endpoints ?? {}),
    rewardModel: Object.keys(config.rewardModel?.endpoints ?? {}),
    jsIsolate: true,
  };
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const logger = options.logger ?? silentLogger;
  const metrics = new Metrics();
  const failures = new ServiceFailureLog(logger);
  const credentials = grpcServerCredentials(options.tls ?? null);
  const token = options.authToken ?? null;
  const runtime = await openRuntime({
    workers: options.workers,
    config: options.config,
    observer: {
      onResult(result, seconds, waitedSeconds) {
        metrics.onResult(result, seconds, waitedSeconds);
        failures.onResult(result);
      },
    },
    metricsRegistry: metrics.registry,
    sandboxObserver: metrics.sandbox,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.registryModule ? { registryModule: options.registryModule } : {}),
  });
  const { engine } = runtime;
  metrics.watchQueue(() => ({ pendingSamples: engine.pendingSamples(), queuedChunks: engine.queuedChunks() }));

  let serving = true;
  const grpcServer = await startGrpcServer(engine, metrics, options.host, options.grpcPort, {
    interceptors: [grpcRequestLog(logger, metrics), ...(token !== null ? [grpcAuth(token)] : [])],
    credentials,
  });
  let http: HttpServer | null = null;
  if (options.httpPort !== null) {
    const ops = [httpRequestLog(logger, metrics), ...(token !== null ? [httpAuth(token)] : [])];
    http = await listen(createGateway(engine, metrics, () => serving, ops), options.host, options.httpPort);
  }
  const httpAddress = http?.address();
  const httpPort = httpAddress && typeof httpAddress === 'object' ? httpAddress.port : null;
  const where = httpPort === null ? 'no HTTP' : `HTTP on ${options.host}:${httpPort}`;
  logger.info(
    {
      version: packageVersion(),
      host: options.host,
      grpcPort: grpcServer.port,
      httpPort,
      workers: options.workers,
      verifiers: engine.registry.list().map((v) => `${v.name}@${v.version}`),
      services: configuredServices(options.config),
      auth: token !== null ? 'bearer' : 'none',
      tls: options.tls ? (options.tls.clientCaFile !== undefined ? 'mutual' : 'server') : 'none',
    },
    `serving: gRPC on ${options.host}:${grpcServer.port}, ${where}, ${options.workers} workers`,
  );

  let stopping: Promise<void> | null = null;
  return {
    grpcPort: grpcServer.port,
    httpPort,
    engine,
    shutdown() {
      stopping ??= (async () => {
        serving = false;
        grpcServer.health.setStatus('', 'NOT_SERVING');
        grpcServer.health.setStatus('verdict.v1.Scorer', 'NOT_SERVING');
        // Refuse new batches at once; the listeners stay up so in-flight calls can still answer.
        await engine.close(options.drainMs ?? 10_000);
        await new Promise<void>((resolve) => grpcServer.server.tryShutdown(() => resolve()));
        if (http) {
          http.closeAllConnections();
          await new Promise<void>((resolve) => http!.close(() => resolve()));
        }
        await runtime.close();
        logger.info('stopped');
      })();
      return stopping;
    },
  };
}
