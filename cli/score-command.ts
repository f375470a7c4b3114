import { writeFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import type { GroupOptions } from '../core/groups';
import { startThreadsEarly } from '../services/pool/threads';
import { FORMATS } from './dataset/format';
import type { Mapping } from './dataset/mapping';
import { addMappingOptions, addServerOptions, mappingOrThrow, serverTarget } from './dataset-options';
import { config, fraction, groupOptionsArgument, integer, UsageError, workersOption } from './options';

// What a run needs beyond its flags is loaded in the action (dynamic imports), after the pool's
// threads have started: they load the verifiers on the other cores while this thread loads the
// reader, the engine and the writers (services/pool/threads.ts).

/**
 * The pool entry that a local run's threads load (cli/scorer.ts: SCORE_VERIFIERS.module, the
 * verifiers and the job that makes result rows), resolved without loading it, which would load the
 * verifiers before the threads start. test/spine/examples.test.ts checks that the two name the same file.
 */
export const POOL_ENTRY = require.resolve('./pool-entry');

/** The INVALID share past which `verdict score` exits 1: a mapping that is wrong shows up as a failure, not as a file of INVALIDs. */
export const DEFAULT_MAX_INVALID = 0.05;

interface ScoreFlags {
  output: string;
  format?: string;
  outputFormat?: string;
  workers: number;
  config?: string;
  batchSize: number;
  progress: boolean;
  pairs?: boolean;
  endpoint?: string;
  groupOptions?: GroupOptions;
  groups?: string;
  preset?: string;
  responseField?: string;
  labelField?: string;
  idField?: string;
  groupField?: string;
  tokensField?: string;
  promptField?: string;
  routeField?: string;
  route?: string[];
  verifier?: string;
  keepColumns: boolean;
  keepResponse?: boolean;
  maxInvalid: number;
  resume?: boolean;
  retryAborted?: string;
  summaryJson?: string;
  compare?: string;
  server?: string;
  authTokenFile?: string;
  tlsCa?: string;
  tlsCert?: string;
  tlsKey?: string;
  tokenizer?: string;
}

export function addScoreCommand(cli: Command): void {
  const command = cli
    .command('score')
    .description('score a dataset (JSONL, .jsonl.gz, .jsonl.zst, Parquet): one result row per sample, in input order')
    .argument('<in>', 'input file ("-" = JSONL on stdin)')
    .option('-o, --output <file>', 'results file, format by extension ("-" = JSONL on stdout)', '-')
    .addOption(new Option('--format <format>', 'input format instead of the extension\'s').choices(FORMATS))
    .addOption(new Option('--output-format <format>', 'output format instead of the extension\'s').choices(FORMATS))
    .addOption(workersOption())
    .option('--config <file>', 'service config (YAML or JSON)')
    .addOption(new Option('--batch-size <n>', 'samples scored together (lines, where the pool threads make the rows: JSONL in and out)').argParser(integer('--batch-size', 1)).default(4096))
    .option('--no-progress', 'no progress line (none is shown unless stderr is a terminal)');
  addServerOptions(addMappingOptions(command))
    .option('--no-keep-columns', 'do not copy unmapped input columns to the results')
    .option('--keep-response', 'each result row also carries its response (a "response" column), for verdict report to show beside the reward')
    .addOption(new Option('--max-invalid <fraction>', 'exit 1 when more than this share of samples is INVALID').argParser(fraction('--max-invalid')).default(DEFAULT_MAX_INVALID))
    .option('--resume', 'continue an interrupted run from the checkpoint beside the output')
    .option('--retry-aborted <prev>', 'a previous results file of this input: keep its rows, score its ABORTED rows again')
    .option('--summary-json <file>', 'write the closing summary as JSON ("-" = stdout, with -o FILE)')
    .option('--compare <old>', 'after scoring, compare with an earlier results file of the same input (as verdict diff)')
    .option('--tokenizer <tokenizer.json>', 'count response_tokens with this local Hugging Face tokenizer where rows have none')
    .option('--pairs', 'the input holds chosen/rejected preference pairs: print mean chosen, mean rejected, accuracy')
    .option('--endpoint <name>', 'reward-model endpoint for --pairs (default: the config default)')
    .addOption(
      new Option('--group-options <json>', 'group shaping, as a request\'s groupOptions: \'{"lengthPenalty":true,"maxLength":30000,"advantage":"grpo"}\'').argParser(
        groupOptionsArgument,
      ),
    )
    .option('--groups <file>', 'write one GroupSummary JSON line per group (the input must keep each group contiguous)')
    .action(async (input: string, opts: ScoreFlags) => {
      if (opts.pairs) {
        const { formatPairsReport, runPairs } = await import('./pairs');
        const report = await runPairs({ input, config: config(opts.config), ...(opts.endpoint ? { endpoint: opts.endpoint } : {}) });
        process.stdout.write(formatPairsReport(report) + '\n');
        return;
      }
      if (opts.summaryJson === '-' && opts.output === '-') throw new UsageError('--summary-json - and results on stdout cannot share it: give -o FILE, or --summary-json FILE');
      const mapping = mappingOrThrow(opts);
      if (opts.compare && opts.output === '-') throw new Error('--compare needs -o FILE: it reads the new results back');
      const target = serverTarget(opts);
      const early = target === null && opts.workers > 0 ? startThreadsEarly(POOL_ENTRY, opts.workers) : null;
      try {
        await scoreAndReport(input, opts, mapping, target);
      } finally {
        await early?.release();
      }
    });
}

/** Scores `input` here or on the replicas of `target`, and prints the summary, the hints and `--compare`'s diff. */
async function scoreAndReport(input: string, opts: ScoreFlags, mapping: Mapping, target: ReturnType<typeof serverTarget>): Promise<void> {
  const { scoreFile } = await import('./score');
  const run = await scoreFile({
    input,
    output: opts.output,
    ...(opts.format ? { inputFormat: opts.format } : {}),
    ...(opts.outputFormat ? { outputFormat: opts.outputFormat } : {}),
    workers: opts.workers,
    config: config(opts.config),
    batchSize: opts.batchSize,
    progress: opts.progress && process.stderr.isTTY === true,
    groupOptions: opts.groupOptions ?? null,
    ...(opts.groups ? { groupsOutput: opts.groups } : {}),
    mapping,
    keepColumns: opts.keepColumns,
    keepResponse: opts.keepResponse === true,
    resume: opts.resume === true,
    ...(opts.retryAborted ? { retryAborted: opts.retryAborted } : {}),
    ...(target ?? {}),
    countTokens: opts.tokenizer ? (await import('./tokenizer')).loadTokenCounter(opts.tokenizer) : null,
    handleSignals: true,
  });
  const { summary } = run;
  // stdout holds the results, or the summary as JSON with --summary-json -: the text goes to stderr then.
  const report = opts.output === '-' || opts.summaryJson === '-' ? process.stderr : process.stdout;
  const lines = [summary.render()];
  const total = summary.total;
  const invalid = summary.countOf('INVALID');
  const failures: string[] = [];
  if (run.interrupted) lines.push(`interrupted after input line ${run.lastLine}: continue with the same command and --resume`);
  else if (summary.countOf('OK') === 0) failures.push(total === 0 ? 'the input has no samples' : 'no sample was scored OK');
  else if (invalid / total > opts.maxInvalid) failures.push(`${invalid} of ${total} samples are INVALID (${((100 * invalid) / total).toFixed(1)}%, --max-invalid ${opts.maxInvalid})`);
  if (failures.length > 0) {
    lines.push(`verdict score failed: ${failures.join('; ')}`);
    const top = summary.topReasons('INVALID', 5);
    if (top.length > 0) lines.push('top INVALID reasons:', ...top.map((r) => `  ${String(r.count).padStart(9)}  ${r.reason}`));
  }
  lines.push(...(await import('./service-hints')).serviceHints(summary.rows()));
  report.write(lines.join('\n') + '\n');
  if (opts.summaryJson) {
    const json = JSON.stringify({ ...summary.toJson(), interrupted: run.interrupted, lastLine: run.lastLine, failures }, null, 2) + '\n';
    if (opts.summaryJson === '-') process.stdout.write(json);
    else writeFileSync(opts.summaryJson, json);
  }
  if (opts.compare && !run.interrupted) {
    const { diffFiles, renderDiff } = await import('./diff');
    report.write(renderDiff(await diffFiles(opts.compare, opts.output, {})) + '\n');
  }
  process.exitCode = run.interrupted ? 130 : failures.length > 0 ? 1 : 0;
}
