import { Command, Option } from 'commander';
import { createRegistry } from '../verifiers';
import { ConfigError } from '../services/config';
import { startServer } from '../services/server';
import { AuthSetupError, loadToken, TOKEN_ENV } from '../services/auth';
import { createLogger, LOG_LEVELS, type LogLevel } from '../services/log';
import { packageVersion } from '../services/version';
import { addCheckCommand, addDiffCommand } from './commands';
import { config, integer, workersOption } from './options';
import { addScoreCommand } from './score-command';
import { addCurateCommand } from './curate/command';
import { addAuditCommand } from './audit/command';
import { addReportCommand } from './report';
import { addTasksCommand } from './tasks';
import { diagnose, renderFindings } from './doctor';
import { sandboxConfigSection } from '../services/sandbox';

export function program(): Command {
  const cli = new Command('verdict')
    .description('Reward and verifier services for RL of language models, behind one batched Score API')
    .version(packageVersion(), '-V, --version', 'print the version')
    .showHelpAfterError();

  cli
    .command('serve')
    .description('serve the gRPC Score API and the HTTP gateway')
    .addOption(new Option('--port <port>', 'gRPC port (0 = any free port)').argParser(integer('--port', 0)).default(50051))
    .addOption(new Option('--http-port <port>', 'HTTP gateway port (0 = any free port)').argParser(integer('--http-port', 0)).default(8080))
    .option('--no-http', 'serve gRPC only')
    .option('--host <host>', 'address to listen on (0.0.0.0 = every interface, as a container needs)', '127.0.0.1')
    .addOption(workersOption())
    .option('--config <file>', 'service config (YAML or JSON): judges, reward models, sandbox')
    .addOption(new Option('--drain-ms <ms>', 'how long in-flight batches may finish after SIGTERM').argParser(integer('--drain-ms', 0)).default(10000))
    .addOption(new Option('--log-level <level>', 'JSON log lines on stdout at this level and above').choices(LOG_LEVELS).default('info'))
    .option('--auth-token-file <file>', `bearer token every call but health must carry (default: $${TOKEN_ENV}; neither = no authentication)`)
    .option('--tls-cert <file>', 'PEM certificate chain: serve gRPC over TLS (with --tls-key)')
    .option('--tls-key <file>', 'PEM private key of --tls-cert')
    .option('--tls-client-ca <file>', 'PEM CA bundle: require client certificates it signed (mutual TLS)')
    .action(async (opts: { port: number; httpPort: number; http: boolean; host: string; workers: number; config?: string; drainMs: number; logLevel: LogLevel; authTokenFile?: string; tlsCert?: string; tlsKey?: string; tlsClientCa?: string }) => {
      if ((opts.tlsCert === undefined) !== (opts.tlsKey === undefined)) throw new AuthSetupError('--tls-cert and --tls-key go together');
      if (opts.tlsClientCa !== undefined && opts.tlsCert === undefined) throw new AuthSetupError('--tls-client-ca needs --tls-cert and --tls-key');
      const logger = createLogger(opts.logLevel);
      const server = await startServer({
        host: opts.host,
        grpcPort: opts.port,
        httpPort: opts.http ? opts.httpPort : null,
        workers: opts.workers,
        config: config(opts.config),
        drainMs: opts.drainMs,
        logger,
        authToken: loadToken(opts.authTokenFile !== undefined ? { file: opts.authTokenFile } : {}),
        tls:
          opts.tlsCert !== undefined && opts.tlsKey !== undefined
            ? { certFile: opts.tlsCert, keyFile: opts.tlsKey, ...(opts.tlsClientCa !== undefined ? { clientCaFile: opts.tlsClientCa } : {}) }
            : null,
      });
      const stop = (signal: string) => {
        logger.info({ signal, drainMs: opts.drainMs, pendingSamples: server.engine.pendingSamples() }, `${signal}, draining`);
        server.shutdown().then(
          () => process.exit(0),
          (error: unknown) => {
            logger.error({ error: String(error) }, 'shutdown failed');
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
  addCurateCommand(cli);
  addAuditCommand(cli);
  addReportCommand(cli);
  addTasksCommand(cli);

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
      const width = Math.max(...list.map((v) => v.name.length)) + 1;
      for (const v of list) process.stdout.write(`${v.name.padEnd(width)} ${v.version.padEnd(8)} ${v.description}\n`);
    });

  cli
    .command('doctor')
    .description('check this host or pod for what the sandbox needs (bwrap, user namespaces, cgroups, python3, limits); exit 1 if it cannot run')
    .option('--config <file>', 'service config (YAML or JSON); its sandbox section, else the defaults')
    .option('--json', 'print the findings as JSON')
    .action(async (opts: { config?: string; json?: boolean }) => {
      const findings = await diagnose(config(opts.config).sandbox ?? sandboxConfigSection.parse({}));
      process.stdout.write((opts.json ? JSON.stringify(findings, null, 2) : renderFindings(findings)) + '\n');
      if (findings.some((f) => f.status === 'fail')) process.exitCode = 1;
    });

  return cli;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await program().parseAsync(argv);
  } catch (error) {
    const message =
      error instanceof ConfigError ? `config error: ${error.message}` : error instanceof AuthSetupError ? `auth: ${error.message}` : error instanceof Error ? error.message : String(error);
    process.stderr.write(`verdict: ${message}\n`);
    process.exit(2);
  }
}
