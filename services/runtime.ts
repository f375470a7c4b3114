import type { Registry as MetricsRegistry } from 'prom-client';
import type { Registry } from '../core/registry';
import { createServices } from './bootstrap';
import type { VerdictConfig } from './config';
import type { SandboxObserver } from './observers';
import { Engine, type EngineLimits, type EngineObserver } from './engine/engine';
import { DEFAULT_REGISTRY_MODULE, InlineExecutor, PoolExecutor } from './pool/executor';

export interface RuntimeOptions {
  /** Worker threads; 0 scores pure verifiers on the main thread. */
  workers: number;
  config: VerdictConfig;
  limits?: Partial<EngineLimits>;
  observer?: EngineObserver;
  metricsRegistry?: MetricsRegistry;
  sandboxObserver?: SandboxObserver;
  /** A module exporting `createRegistry()`; the verifiers Verdict serves unless a test says otherwise. */
  registryModule?: string;
}

export interface Runtime {
  engine: Engine;
  /** Drains the engine (up to `drainMs`), then stops the services. */
  close(drainMs?: number): Promise<void>;
}

/** The engine with its registry, executor and I/O services: what the server and the CLI both run. */
export async function openRuntime(options: RuntimeOptions): Promise<Runtime> {
  const registryModule = options.registryModule ?? DEFAULT_REGISTRY_MODULE;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const registry = (require(registryModule) as { createRegistry(): Registry }).createRegistry();
  const serviceSet = await createServices(options.config, {
    ...(options.metricsRegistry ? { metricsRegistry: options.metricsRegistry } : {}),
    ...(options.sandboxObserver ? { sandboxObserver: options.sandboxObserver } : {}),
  });
  const executor =
    options.workers > 0 ? new PoolExecutor(options.workers, registryModule) : new InlineExecutor(registry);
  const engine = new Engine({
    registry,
    executor,
    services: serviceSet.services,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.observer ? { observer: options.observer } : {}),
  });
  return {
    engine,
    async close(drainMs) {
      await engine.close(drainMs);
      await serviceSet.close();
    },
  };
}
