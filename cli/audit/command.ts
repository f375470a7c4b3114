import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { packageRoot } from '../../services/paths';
import { addMappingOptions, mappingOrThrow } from '../dataset-options';
import { FORMATS } from '../dataset/format';
import type { MappingFlags } from '../dataset/mapping';
import { config, fraction, integer, workersOption } from '../options';

interface AuditFlags extends MappingFlags {
  format?: string;
  sample?: number;
  seed: string;
  config?: string;
  output?: string;
  maxGameable: number;
  battery?: string;
  self?: boolean;
  workers: number;
}

/** The project's own example labels: examples/*.jsonl and every verifier's check cases. */
function selfInputs(): string[] {
  const root = packageRoot();
  const verifiers = path.join(root, 'verifiers');
  const cases = readdirSync(verifiers, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => path.join(verifiers, d.name, 'cases.jsonl'))
    .filter((f) => {
      try {
        return readdirSync(path.dirname(f)).includes('cases.jsonl');
      } catch {
        return false;
      }
    });
  return [path.join(root, 'examples', 'batch.jsonl'), path.join(root, 'examples', 'qa-free-text.jsonl'), ...cases];
}

export function addAuditCommand(cli: Command): void {
  const command = cli
    .command('audit')
    .description('find a dataset\'s reward hacks before training: score batteries of hostile responses per label with the real verifiers, report every hack that earns a reward or turns a 0 into ABORTED/INVALID')
    .argument('[datasets...]', 'dataset files (the formats and mapping flags of verdict score)')
    .addOption(new Option('--format <format>', 'input format instead of the extension\'s').choices(FORMATS))
    .addOption(new Option('--sample <n>', 'audit a seeded sample of N labels').argParser(integer('--sample', 1)))
    .option('--seed <seed>', 'the seed of --sample', 'verdict')
    .option('--config <file>', 'service config (YAML or JSON): sandbox, judge, reward model')
    .option('-o, --output <file>', 'write the report (kind verdict.audit) as JSON')
    .addOption(new Option('--max-gameable <fraction>', 'exit 1 when more than this share of audited labels is gameable').argParser(fraction('--max-gameable')).default(0))
    .option('--battery <file>', 'extra hacks, JSONL: {"verifier", "id", "doc", "response"} with {{label.PATH}} placeholders')
    .option('--self', 'audit Verdict\'s own verifiers with the project\'s example labels (fails on any hack a verifier lets through)')
    .addOption(workersOption());
  addMappingOptions(command).action(async (datasets: string[], opts: AuditFlags) => {
    // Loaded when an audit runs: the batteries and the verifiers are no part of other commands' start-up.
    const { audit, renderAudit } = await import('./audit');
    if (opts.self && datasets.length > 0) throw new Error('--self audits the project\'s own labels: give no dataset');
    if (!opts.self && datasets.length === 0) throw new Error('give a dataset (or --self)');
    const inputs = opts.self ? selfInputs() : datasets;
    const cfg = config(opts.config ?? (opts.self ? path.join(packageRoot(), 'audit', 'self.config.yaml') : undefined));
    const showProgress = process.stderr.isTTY === true;
    const report = await audit({
      inputs,
      ...(opts.format ? { format: opts.format } : {}),
      mapping: mappingOrThrow(opts),
      ...(opts.verifier ? { verifier: opts.verifier } : {}),
      ...(opts.sample !== undefined ? { sample: opts.sample } : {}),
      seed: opts.seed,
      config: cfg,
      workers: opts.workers,
      ...(opts.battery ? { batteryFile: opts.battery } : {}),
      verifierBlameOnly: opts.self === true,
      ...(showProgress ? { progress: (done: number, total: number) => process.stderr.write(`\rauditing ${done}/${total} hostile samples`) } : {}),
    });
    if (showProgress) process.stderr.write('\n');
    process.stdout.write(renderAudit(report) + '\n');
    if (opts.output) writeFileSync(opts.output, JSON.stringify(report, null, 2) + '\n');
    if (report.gameability > opts.maxGameable) {
      process.stdout.write(`verdict audit failed: gameability ${report.gameability.toFixed(3)} is over --max-gameable ${opts.maxGameable}\n`);
      process.exitCode = 1;
    }
  });
}
