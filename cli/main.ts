import { Command, Option } from 'commander';
import { createRegistry } from '../verifiers';
import { ConfigError } from '../services/config';
import { startServer } from '../services/server';
import { addCheckCommand, addDiffCommand } from './commands';
import { config, integer, workersOption } from './options';
import { addScoreCommand } from './score-command';

export function program(): Command {
  const cli = new Command('verdict')
    .description('Reward and verifier services for RL of language models, behind one batched Score API')
    .showHelpAfterError();

  cli
    .command('serve')
    .description('serve the gRPC Score API and the HTTP gateway')
    .addOption(new Option('--port <port>', 'gRPC port (0 = any free port)').argParser(integer('--port', 0)).default(50051))
    .addOption(new Option('--http-port <port>', 'HTTP gateway port (0 = any free port)').argParser(integer('--http-port', 0)).default(8080))
    .option('--no-http', 'serve gRPC only')
    .option('--host <host>', 'address to listen on', '0.0.0.0')
    .addOption(workersOption())
    .option('--config <file>', 'service config (YAML or JSON): judges, reward models, sandbox')
    .addOption(new Option('--drain-ms <ms>', 'how long in-flight batches may finish after SIGTERM').argParser(integer('--drain-ms', 0)).default(10000))
    .action(async (opts: { port: number; httpPort: number; http: boolean; host: string; workers: number; config?: string; drainMs: number }) => {
      const server = await startServer({
        host: opts.host,
        grpcPort: opts.port,
        httpPort: opts.http ? opts.httpPort : null,
        workers: opts.workers,
        config: config(opts.config),
        drainMs: opts.drainMs,
      });
      const http = server.httpPort === null ? 'no HTTP' : `HTTP on ${opts.host}:${server.httpPort}`;
      process.stdout.write(`verdict: gRPC on ${opts.host}:${server.grpcPort}, ${http}, ${opts.workers} workers\n`);
      const stop = (signal: string) => {
        process.stdout.write(`verdict: ${signal}, draining\n`);
        server.shutdown().then(
          () => process.exit(0),
          (error: unknown) => {
            process.stderr.write(`verdict: shutdown failed: ${String(error)}\n`);
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });

  addScoreCommand(cli);
  addCheckCommand(cli);
  addDiffCommand(cli);

  cli
    .command('verifiers')
    .description('list the registered verifiers')
    .option('--json', 'print name, version, description and label JSON Schema as JSON')
    .action((opts: { json?: boolean }) => {
      const list = createRegistry().list();
      if (opts.json) {
        process.stdout.write(JSON.stringify(list.map((v) => ({ ...v, labelSchema: JSON.parse(v.labelSchema) as unknown })), null, 2) + '\n');
        return;
      }
      for (const v of list) process.stdout.write(`${v.name.padEnd(10)} ${v.version.padEnd(8)} ${v.description}\n`);
    });

  return cli;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await program().parseAsync(argv);
  } catch (error) {
    const message = error instanceof ConfigError ? `config error: ${error.message}` : error instanceof Error ? error.message : String(error);
    process.stderr.write(`verdict: ${message}\n`);
    process.exit(2);
  }
}
