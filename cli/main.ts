import { Command, CommanderError, Option } from 'commander';
import { ConfigError } from '../services/config/error';
import { ListenError } from '../services/listen-error';
import { AuthSetupError, loadToken, TOKEN_ENV } from '../services/auth';
import { LOG_LEVELS, type LogLevel } from '../services/log-levels';
import { packageVersion } from '../services/version';
import { addCheckCommand, addDiffCommand, renderVerifiers } from './commands';
import { collect, config, integer, UsageError, workersOption } from './options';
import { normalOrigin } from '../services/http/same-origin';
import { addScoreCommand } from './score-command';
import { addCurateCommand } from './curate/command';
import { addAuditCommand } from './audit/command';
import { addReportCommand } from './report';
import { addTasksCommand } from './tasks';
import { addExamples } from './examples';

// Each command loads what it runs when it runs (a dynamic import in its action): `verdict score`
// starts its pool threads without first loading the verifiers, the config schema, the checker, the
// curation and audit tools, the logger or the sandbox's host probes.

/** `--allow-origin` values, each checked to be an origin (`https://host[:port]`). */
function allowedOrigins(values: string[]): string[] {
  return values.map((value) => {
    const origin = normalOrigin(value);
    if (origin === null) throw new UsageError(`--allow-origin ${value}: expected an origin such as https://dash.example:3000`);
    return origin;
  });
}

export function program(): Command {
  const cli = new Command('verdict')
    .description('Reward and verifier services for RL of language models, behind one batched Score API')
    .version(packageVersion(), '-V, --version', 'print the version')
    // A parse error is one line and a pointer to --help (not the whole help), exit 2, as the README
    // says; both settings are inherited by the commands added below.
    .exitOverride()
    .showHelpAfterError(false);

  cli
    .command('serve')
    .description('serve the gRPC Score API and the HTTP gateway')
    .addOption(new Option('--port <port>', 'gRPC port (0 = any free port)').argParser(integer('--port', 0, 65535)).default(50051))
    .addOption(new Option('--http-port <port>', 'HTTP gateway port (0 = any free port)').argParser(integer('--http-port', 0, 65535)).default(8080))
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
    .option('--allow-origin <origin>', 'without a token, a web page of this origin may call the HTTP API too (repeatable; others are refused)', collect)
    .action(async (opts: { allowOrigin?: string[]; port: number; httpPort: number; http: boolean; host: string; workers: number; config?: string; drainMs: number; logLevel: LogLevel; authTokenFile?: string; tlsCert?: string; tlsKey?: string; tlsClientCa?: string }) => {
      if ((opts.tlsCert === undefined) !== (opts.tlsKey === undefined)) throw new AuthSetupError('--tls-cert and --tls-key go together');
      if (opts.tlsClientCa !== undefined && opts.tlsCert === undefined) throw new AuthSetupError('--tls-client-ca needs --tls-cert and --tls-key');
      // Loaded for `serve` alone: gRPC, the HTTP gateway and their services are no part of the other commands' start-up.
      const { createLogger } = await import('../services/log');
      const logger = createLogger(opts.logLevel);
      const { startServer } = await import('../services/server');
      const server = await startServer({
        host: opts.host,
        grpcPort: opts.port,
        httpPort: opts.http ? opts.httpPort : null,
        workers: opts.workers,
        config: config(opts.config),
        drainMs: opts.drainMs,
        logger,
        authToken: loadToken(opts.authTokenFile !== undefined ? { file: opts.authTokenFile } : {}),
        allowOrigins: allowedOrigins(opts.allowOrigin ?? []),
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
    .option('--json', 'print name, version, description, label JSON Schema, config sections read and example as JSON')
    .action(async (opts: { json?: boolean }) => {
      const { createRegistry } = await import('../verifiers');
      process.stdout.write(renderVerifiers(createRegistry(), opts.json === true));
    });

  cli
    .command('doctor')
    .description('check this host or pod for what the sandbox needs (bwrap, user namespaces, cgroups, python3, limits); exit 1 if it cannot run')
    .option('--config <file>', 'service config (YAML or JSON); its sandbox section, else the defaults')
    .option('--json', 'print the findings as JSON')
    .action(async (opts: { config?: string; json?: boolean }) => {
      const [{ diagnose, renderFindings }, { sandboxConfigSection }] = await Promise.all([import('./doctor'), import('../services/sandbox/config')]);
      const findings = await diagnose(config(opts.config).sandbox ?? sandboxConfigSection.parse({}));
      process.stdout.write((opts.json ? JSON.stringify(findings, null, 2) : renderFindings(findings)) + '\n');
      if (findings.some((f) => f.status === 'fail')) process.exitCode = 1;
    });

  addExamples(cli);
  return cli;
}

/** `verdict curate dedup --help` for the (sub)command the arguments name, else `verdict --help`. */
function helpHint(argv: string[], cli: Command): string {
  const path: string[] = [];
  let at = cli;
  for (const arg of argv.slice(2)) {
    const sub = arg.startsWith('-') ? undefined : at.commands.find((c) => c.name() === arg);
    if (!sub) break;
    path.push(sub.name());
    at = sub;
  }
  return `(see verdict ${path.map((p) => `${p} `).join('')}--help)`;
}

/**
 * stdout or stderr closed by the reader (`verdict score --help | head`): stop quietly, with the status a
 * shell gives a process killed by SIGPIPE (128 + 13), instead of a stack trace about EPIPE.
 */
function exitOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(141);
    throw error;
  });
}

export async function main(argv: string[]): Promise<void> {
  exitOnClosedPipe(process.stdout);
  exitOnClosedPipe(process.stderr);
  const cli = program();
  try {
    await cli.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version are exits too: 0. commander has printed the error line itself.
      if (error.exitCode === 0) process.exit(0);
      process.stderr.write(`${helpHint(argv, cli)}\n`);
      process.exit(2);
    }
    if (error instanceof UsageError) {
      process.stderr.write(`verdict: ${error.message}\n${helpHint(argv, cli)}\n`);
      process.exit(2);
    }
    const message =
      error instanceof ListenError
        ? `${error.api === 'grpc' ? '--port' : '--http-port'} ${error.port}: ${error.message} (pick another with ${error.api === 'grpc' ? '--port' : '--http-port'}${error.api === 'http' ? ', or --no-http' : ''})`
        : error instanceof ConfigError ? `config error: ${error.message}` : error instanceof AuthSetupError ? `auth: ${error.message}` : error instanceof Error ? error.message : String(error);
    process.stderr.write(`verdict: ${message}\n`);
    process.exit(2);
  }
}
