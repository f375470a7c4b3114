import type { Registry as MetricsRegistry } from 'prom-client';
import { createServices } from './bootstrap';
import type { VerdictConfig } from './config';
import type { SandboxObserver } from './observers';
import { Engine, type EngineLimits, type EngineObserver } from './engine/engine';
import { InlineExecutor, PoolExecutor, type Executor } from './pool/executor';
import { VERDICT_VERIFIERS } from './pool-entry';
import type { PoolEntry } from './pool/worker';

export interface RuntimeOptions {
  /** Worker threads; 0 scores pure verifiers on the main thread. */
  workers: number;
  config: VerdictConfig;
  limits?: Partial<EngineLimits>;
  observer?: EngineObserver;
  metricsRegistry?: MetricsRegistry;
  sandboxObserver?: SandboxObserver;
  /** The verifiers to serve: Verdict's own unless a test says otherwise. */
  verifiers?: PoolEntry;
}

export interface Runtime {
  engine: Engine;
  /** Where the engine runs pure work: jobs of the pool entry's module run here too (Executor.runJob). */
  executor: Executor;
  /** Drains the engine (up to `drainMs`), then stops the services. */
  close(drainMs?: number): Promise<void>;
}

/**
 * The composition root: the registry (from the pool entry, so the worker threads build the same
 * one), the I/O services the config asks for (services/bootstrap.ts), the executor and the engine.
 * What the server and the CLI both run.
 */
export async function openRuntime(options: RuntimeOptions): Promise<Runtime> {
  const verifiers = options.verifiers ?? VERDICT_VERIFIERS;
  const registry = verifiers.createRegistry();
  const serviceSet = await createServices(options.config, {
    ...(options.metricsRegistry ? { metricsRegistry: options.metricsRegistry } : {}),
    ...(options.sandboxObserver ? { sandboxObserver: options.sandboxObserver } : {}),
  });
  const executor: Executor =
    options.workers > 0 ? new PoolExecutor(verifiers, options.workers) : new InlineExecutor(registry);
  const engine = new Engine({
    registry,
    executor,
    services: serviceSet.services,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
  });
  return {
    engine,
    executor,
    async close(drainMs) {
      await engine.close(drainMs);
      await serviceSet.close();
    },
  };
}
