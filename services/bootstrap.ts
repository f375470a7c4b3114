import type { Registry as MetricsRegistry } from 'prom-client';
import { existsSync, statSync } from 'node:fs';
import { SandboxError } from '../core/ports/sandbox';
import type { Services } from '../core/verifier';
import { ConfigError, type VerdictConfig } from './config';
import type { SandboxObserver } from './observers';
import { jsIsolateConfigSection, JsIsolates } from './js-isolate';

export interface ServiceSet {
  services: Services;
  /** Stops what the services started (sandbox workers, cache handles); safe to call twice. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** Where services register their Prometheus metrics; prom-client's default registry when absent. */
  metricsRegistry?: MetricsRegistry;
  /** Where endpoint URLs, models and keys not in the config are read from; process.env when absent. */
  env?: NodeJS.ProcessEnv;
  /** Told of sandbox slot starts, kills and busy slots; nothing when absent. */
  sandboxObserver?: SandboxObserver;
}

/**
 * Builds the I/O services a config asks for, each behind its port in core/ports/. Each service
 * contributes one block here; services not configured stay absent, and verifiers that need them
 * answer ABORTED ("service_unavailable"). Every problem found is reported at once, each naming
 * its key; whatever was opened before a failure is closed again.
 *
 * A service's module is loaded (a dynamic import) only when its section is there: the judge's
 * metrics, the docker client's streams and the agent-state service are ~150 modules that a run
 * without them (`verdict score` on pure verifiers, the default) does not wait for at start-up.
 */
export async function createServices(config: VerdictConfig, options: ServiceOptions = {}): Promise<ServiceSet> {
  const root = config.source ?? 'config';
  const services: Services = {};
  const closers: Array<() => Promise<void>> = [];
  const problems: string[] = [];
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const closer of closers.reverse()) await closer();
  };

  // In-process and needing nothing outside it, the isolates for `js` rubrics always run.
  services.jsIsolate = new JsIsolates(config.jsIsolate ?? jsIsolateConfigSection.parse({}));

  if (config.judge) {
    const { openJudges } = await import('./judge');
    const opened = openJudges(config.judge, {
      root: `${root}.judge`,
      ...(options.env ? { env: options.env } : {}),
      ...(options.metricsRegistry ? { registry: options.metricsRegistry } : {}),
    });
    if (opened.ok) {
      services.judges = opened.value.judges;
      closers.push(async () => opened.value.close());
    } else problems.push(...opened.errors);
  }
  if (config.rewardModel) {
    const { createRewardModels, RewardModelSetupError } = await import('./reward-model');
    try {
      services.rewardModels = createRewardModels(config.rewardModel, root);
    } catch (error) {
      if (!(error instanceof RewardModelSetupError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (config.agentState) {
    const { AwmReleaseError, agentStateService } = await import('./agent-state');
    const section = config.agentState;
    const fileMb = config.sandbox?.limits.fileMb ?? 16;
    // Both states are files the run writes: each must fit the sandbox's file-size limit.
    if (section.maxStateMb > fileMb) problems.push(`${root}.agentState.maxStateMb: ${section.maxStateMb} is over sandbox.limits.fileMb (${fileMb}), the largest file a run may write`);
    if (section.taskDir !== undefined && !(existsSync(section.taskDir) && statSync(section.taskDir).isDirectory())) problems.push(`${root}.agentState.taskDir: ${section.taskDir} is not a folder`);
    section.tasks.forEach((source, k) => {
      if ('dir' in source && !(existsSync(source.dir) && statSync(source.dir).isDirectory())) problems.push(`${root}.agentState.tasks[${k}].dir: ${source.dir} is not a folder`);
    });
    try {
      services.agentState = agentStateService(section);
    } catch (error) {
      if (!(error instanceof AwmReleaseError)) throw error;
      problems.push(...error.problems.map((problem) => `${root}.agentState.tasks: ${problem}`));
    }
  }
  if (config.terminal) {
    const section = config.terminal;
    // The runner and the tests must be different uids, which needs root (verifiers/terminal/README.md).
    if (section.backend === 'bwrap' && process.getuid?.() !== 0) problems.push(`${root}.terminal: the bwrap backend needs Verdict to run as root (the test runner and the tests run as different uids)`);
    for (const key of ['taskDir', 'workspaceRoot'] as const) {
      const dir = section[key];
      if (dir !== undefined && !(existsSync(dir) && statSync(dir).isDirectory())) problems.push(`${root}.terminal.${key}: ${dir} is not a folder`);
    }
    // The engine's TLS files are read once, at start-up: a missing one is a config problem, named.
    for (const [name, endpoint] of Object.entries(section.docker?.endpoints ?? {}))
      for (const key of ['ca', 'cert', 'key'] as const) {
        const file = endpoint.tls?.[key];
        if (file !== undefined && !existsSync(file)) problems.push(`${root}.terminal.docker.endpoints.${name}.tls.${key}: ${file} does not exist`);
      }
    if (problems.length === 0 && section.backend === 'docker') {
      const workspace = new (await import('./terminal/docker')).DockerWorkspace(section);
      services.terminal = workspace;
      closers.push(() => workspace.close());
    } else if (problems.length === 0) services.terminal = new (await import('./terminal')).BwrapWorkspace(section);
  }
  // The sandbox starts processes: only once everything else is known to be right.
  if (config.sandbox && problems.length === 0) {
    const { Sandbox } = await import('./sandbox');
    try {
      const sandbox = await Sandbox.start(config.sandbox, options.sandboxObserver);
      services.sandbox = sandbox;
      closers.push(() => sandbox.close());
    } catch (error) {
      if (!(error instanceof SandboxError)) throw error;
      problems.push(`${root}.sandbox: ${error.message}`);
    }
  }
  if (problems.length > 0) {
    await close();
    throw new ConfigError(problems);
  }
  return { services, close };
}
