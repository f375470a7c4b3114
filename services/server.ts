import type { Server as HttpServer } from 'node:http';
import { ConfigError, type VerdictConfig } from './config';
import { trainerDefaults } from './http/config';
import type { Engine, EngineLimits } from './engine/engine';
import type { PoolEntry } from './pool/worker';
import { collectWhenIdle, garbageCollector, IDLE_COLLECTION } from './idle-gc';
import { openRuntime } from './runtime';
import { startGrpcServer } from './grpc/server';
import { createGateway, listen, type HttpLimits } from './http/gateway';
import { OperatorSide, type OperatorOptions } from './operator';
import { ListenError } from './listen-error';

export { ListenError } from './listen-error';

export interface ServeOptions extends OperatorOptions {
  host: string;
  grpcPort: number;
  /** 0 picks a free port; null serves no HTTP gateway. */
  httpPort: number | null;
  /** Worker threads; 0 scores pure verifiers on the main thread. */
  workers: number;
  config: VerdictConfig;
  limits?: Partial<EngineLimits>;
  /** Largest gRPC message, both directions (MAX_MESSAGE_BYTES). */
  maxMessageBytes?: number;
  /** HTTP timeouts and connection cap (DEFAULT_HTTP_LIMITS). */
  httpLimits?: Partial<HttpLimits>;
  /** How long in-flight batches may run on after a shutdown starts. */
  drainMs?: number;
  /** The verifiers to serve: Verdict's own unless a test says otherwise. */
  verifiers?: PoolEntry;
}

export interface RunningServer {
  grpcPort: number;
  httpPort: number | null;
  engine: Engine;
  /** Stops accepting, finishes or aborts in-flight work, stops the listeners and services. */
  shutdown(): Promise<void>;
}

/** Runs `start`, turning its failure into a ListenError after `undo` has released what was started. */
async function listening<T>(api: 'grpc' | 'http', host: string, port: number, start: () => Promise<T>, undo: () => Promise<void>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    await undo();
    throw new ListenError(api, host, port, error);
  }
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  // Read before anything starts: a template file that cannot say its format is a config error.
  const trainers = trainerDefaults(options.config.trainers);
  if (!trainers.ok) throw new ConfigError(`${options.config.source ?? 'config'}.${trainers.error}`);
  const operator = new OperatorSide(options);
  const { metrics } = operator;
  const runtime = await openRuntime({
    workers: options.workers,
    config: options.config,
    observer: operator.observer,
    metricsRegistry: metrics.registry,
    sandboxObserver: metrics.sandbox,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.verifiers ? { verifiers: options.verifiers } : {}),
  });
  const { engine } = runtime;
  metrics.watchQueue(() => ({ pendingSamples: engine.pendingSamples(), queuedChunks: engine.queuedChunks() }));
  // Idle after many samples: this thread collects; after a large request the pool threads do too
  // (on their own cores, while this one does).
  const collectMain = garbageCollector();
  const stopCollecting = collectWhenIdle(engine, IDLE_COLLECTION, () => {
    engine.collectThreadsAfterLarge();
    collectMain();
  });

  let serving = true;
  const grpcServer = await listening('grpc', options.host, options.grpcPort, () => startGrpcServer(engine, metrics, options.host, options.grpcPort, operator.grpc(), options.maxMessageBytes), async () => {
    stopCollecting();
    await runtime.close();
  });
  let http: HttpServer | null = null;
  if (options.httpPort !== null) {
    const httpPort = options.httpPort;
    http = await listening('http', options.host, httpPort, () => listen(createGateway(engine, metrics, () => serving, operator.http(), trainers.value), options.host, httpPort, options.httpLimits), async () => {
      stopCollecting();
      grpcServer.server.forceShutdown();
      await runtime.close();
    });
  }
  const httpAddress = http?.address();
  const httpPort = httpAddress && typeof httpAddress === 'object' ? httpAddress.port : null;
  operator.started({ ...options, grpcPort: grpcServer.port, httpPort, registry: engine.registry });

  let stopping: Promise<void> | null = null;
  return {
    grpcPort: grpcServer.port,
    httpPort,
    engine,
    shutdown() {
      stopping ??= (async () => {
        serving = false;
        stopCollecting();
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
        operator.stopped();
      })();
      return stopping;
    },
  };
}
