import type { Registry as MetricsRegistry } from 'prom-client';
import type { Services } from '../core/verifier';
import { ConfigError, type VerdictConfig } from './config';
import type { SandboxObserver } from './observers';
import { jsIsolateConfigSection, JsIsolates } from './js-isolate';
import { openJudges } from './judge';
import { createRewardModels, RewardModelSetupError } from './reward-model';
import { Sandbox, SandboxError } from './sandbox';

export interface ServiceSet {
  services: Services;
  /** Stops what the services started (sandbox workers, cache handles); safe to call twice. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** Where services register their Prometheus metrics; prom-client's default registry when absent. */
  metricsRegistry?: MetricsRegistry;
  /** Told of sandbox slot starts, kills and busy slots; nothing when absent. */
  sandboxObserver?: SandboxObserver;
}

/**
 * Builds the I/O services a config asks for. Each service contributes one block here; services not
 * configured stay absent, and verifiers that need them answer ABORTED ("service_unavailable").
 */
export async function createServices(config: VerdictConfig, options: ServiceOptions = {}): Promise<ServiceSet> {
  const services: Services = {};
  const closers: Array<() => Promise<void>> = [];
  let closed = false;

  // In-process and needing nothing outside it, the isolates for `js` rubrics always run.
  services.jsIsolate = new JsIsolates(config.jsIsolate ?? jsIsolateConfigSection.parse({}));

  if (config.judge) {
    const opened = openJudges(config.judge, options.metricsRegistry ? { registry: options.metricsRegistry } : {});
    if (!opened.ok) throw new ConfigError(opened.error);
    services.judges = opened.value.judges;
    closers.push(async () => opened.value.close());
  }
  if (config.rewardModel) {
    try {
      services.rewardModels = createRewardModels(config.rewardModel);
    } catch (error) {
      throw error instanceof RewardModelSetupError ? new ConfigError(error.message) : error;
    }
  }
  if (config.sandbox) {
    let sandbox: Sandbox;
    try {
      sandbox = await Sandbox.start(config.sandbox, options.sandboxObserver);
    } catch (error) {
      if (error instanceof SandboxError) throw new ConfigError(`sandbox: ${error.message}`);
      throw error;
    }
    services.sandbox = sandbox;
    closers.push(() => sandbox.close());
  }
  return {
    services,
    async close() {
      if (closed) return;
      closed = true;
      for (const close of closers.reverse()) await close();
    },
  };
}
