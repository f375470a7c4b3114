import type { Command } from 'commander';
import type { DockerConfigSection } from '../services/terminal/config';
import { config } from './options';

/** `verdict tasks build TASKDIR`: each Harbor task's image, built through a configured engine. */
export function addTasksCommand(cli: Command): void {
  const tasks = cli.command('tasks').description('Harbor tasks for the terminal verifier');
  tasks
    .command('build')
    .description('build each task\'s environment/Dockerfile through the engine and tag it as the docker backend\'s fresh containers look for it (<imagePrefix>-<id>:latest)')
    .argument('<taskdir>', 'a Harbor task folder, or a folder of them (each with environment/Dockerfile)')
    .option('--config <file>', 'service config whose terminal.docker section names the engine endpoints and imagePrefix')
    .option('--endpoint <name>', 'the endpoint to build on (default: terminal.docker.freshEndpoint, else the first)')
    .option('--socket <path>', 'without --config: the engine\'s unix socket (Docker, or podman system service)')
    .action(async (taskdir: string, opts: { config?: string; endpoint?: string; socket?: string }) => {
      // Loaded when a build runs: the docker backend is no part of the other commands' start-up.
      const [{ dockerConfigSection }, { buildTargets, buildTaskImage }, { engineClients }] = await Promise.all([
        import('../services/terminal/config'),
        import('../services/terminal/docker/build'),
        import('../services/terminal/docker/engine'),
      ]);
      let section: DockerConfigSection;
      if (opts.config !== undefined) {
        const docker = config(opts.config).terminal?.docker;
        if (docker === undefined) throw new Error(`${opts.config}: terminal.docker: required (the engine endpoints to build on)`);
        section = docker;
      } else if (opts.socket !== undefined) section = dockerConfigSection.parse({ endpoints: { local: { socketPath: opts.socket } } });
      else throw new Error('tasks build: --config FILE (terminal.docker) or --socket PATH is required');
      const clients = engineClients(section);
      const endpoint = opts.endpoint ?? section.freshEndpoint ?? [...clients.keys()][0]!;
      const docker = clients.get(endpoint);
      if (!docker) throw new Error(`--endpoint: no engine endpoint "${endpoint}" in terminal.docker.endpoints`);
      const targets = buildTargets(taskdir);
      if (targets.length === 0) throw new Error(`${taskdir}: no Harbor task folders (with environment/ or task.toml)`);
      let failed = 0;
      for (const [k, target] of targets.entries()) {
        process.stderr.write(`[${k + 1}/${targets.length}] ${target.id}: building…\n`);
        const outcome = await buildTaskImage(docker, target, section.imagePrefix);
        if (outcome.kind === 'failed') failed++;
        const line = outcome.kind === 'built' ? `built ${outcome.tag}` : outcome.kind === 'skipped' ? `skipped: ${outcome.why}` : `FAILED: ${outcome.error}`;
        process.stdout.write(`${target.id}\t${line}\n`);
      }
      process.stdout.write(`${targets.length - failed} of ${targets.length} tasks done, ${failed} failed\n`);
      if (failed > 0) process.exitCode = 1;
    });
}
