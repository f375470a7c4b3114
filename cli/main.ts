import { availableParallelism } from 'node:os';
import { Command, InvalidArgumentError, Option } from 'commander';
import { createRegistry } from '../verifiers';
import { ConfigError, loadConfig, parseConfig, type VerdictConfig } from '../services/config';
import { startServer } from '../services/server';
import { checkCases, renderReports } from './check';
import { diagnose, renderFindings } from './doctor';
import { formatPairsReport, runPairs } from './pairs';
import type { GroupOptions } from '../core/groups';
import { groupOptionsFromJson } from '../services/wire/group-options';
import { scoreFile } from './score';
import { sandboxConfigSection } from '../services/sandbox';

function integer(name: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}`);
    return n;
  };
}

function groupOptionsArgument(value: string): GroupOptions {
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch (error) {
    throw new InvalidArgumentError(`not valid JSON (${(error as Error).message})`);
  }
  const parsed = groupOptionsFromJson(json);
  if (!parsed.ok) throw new InvalidArgumentError(parsed.error);
  return parsed.options;
}

function config(path: string | undefined): VerdictConfig {
  return path ? loadConfig(path) : parseConfig({});
}

const workersOption = () =>
  new Option('--workers <n>', 'worker threads for CPU-bound verifiers (0 = main thread)')
    .argParser(integer('--workers', 0))
    .default(availableParallelism(), 'one per core');

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

  cli
    .command('score')
    .description('score a JSONL rollout file in-process: one result line per input line')
    .argument('<in>', 'input JSONL of samples ("-" = stdin)')
    .option('-o, --output <file>', 'output JSONL of results ("-" = stdout)', '-')
    .addOption(workersOption())
    .option('--config <file>', 'service config (YAML or JSON)')
    .addOption(new Option('--batch-size <n>', 'lines scored together').argParser(integer('--batch-size', 1)).default(4096))
    .option('--no-progress', 'no progress bar (none is shown unless stderr is a terminal)')
    .option('--pairs', 'the input holds chosen/rejected preference pairs: print mean chosen, mean rejected, accuracy')
    .option('--endpoint <name>', 'reward-model endpoint for --pairs (default: the config default)')
    .addOption(
      new Option('--group-options <json>', 'group shaping, as a request\'s groupOptions: \'{"lengthPenalty":true,"maxLength":30000,"advantage":"grpo"}\'').argParser(
        groupOptionsArgument,
      ),
    )
    .option('--groups <file>', 'write one GroupSummary JSON line per group_id (the input must keep each group contiguous)')
    .action(async (input: string, opts: { output: string; workers: number; config?: string; batchSize: number; progress: boolean; pairs?: boolean; endpoint?: string; groupOptions?: GroupOptions; groups?: string }) => {
      if (opts.pairs) {
        const report = await runPairs({ input, config: config(opts.config), ...(opts.endpoint ? { endpoint: opts.endpoint } : {}) });
        process.stdout.write(formatPairsReport(report) + '\n');
        return;
      }
      const summary = await scoreFile({
        input,
        output: opts.output,
        workers: opts.workers,
        config: config(opts.config),
        batchSize: opts.batchSize,
        progress: opts.progress && process.stderr.isTTY === true,
        groupOptions: opts.groupOptions ?? null,
        ...(opts.groups ? { groupsOutput: opts.groups } : {}),
      });
      (opts.output === '-' ? process.stderr : process.stdout).write(summary.render() + '\n');
    });

  cli
    .command('check')
    .description('verifier unit tests: score a JSONL of cases (a sample plus "expect") and report each mismatch')
    .argument('<cases>', 'JSONL file: one sample per line with "expect": {status?, reward?, reason?, reasonMatches?}')
    .addOption(workersOption().default(0, 'main thread'))
    .option('--config <file>', 'service config (YAML or JSON)')
    .option('-v, --verbose', 'list passing cases too')
    .action(async (file: string, opts: { workers: number; config?: string; verbose?: boolean }) => {
      const reports = await checkCases(file, opts.workers, config(opts.config));
      process.stdout.write(renderReports(reports, opts.verbose === true) + '\n');
      if (reports.some((r) => !r.passed)) process.exitCode = 1;
    });

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
    const message = error instanceof ConfigError ? `config error: ${error.message}` : error instanceof Error ? error.message : String(error);
    process.stderr.write(`verdict: ${message}\n`);
    process.exit(2);
  }
}
