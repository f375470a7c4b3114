import { Option, type Command } from 'commander';
import type { Registry } from '../core/registry';
import { config, integer, workersOption } from './options';

export function addCheckCommand(cli: Command): void {
  cli
    .command('check')
    .description('verifier unit tests: score case files (a sample plus "expect") and report each mismatch')
    .argument('[paths...]', 'case files (JSONL, or YAML holding a list) or folders, searched for cases.jsonl|yaml and *.cases.jsonl|yaml')
    .addOption(workersOption().default(0, 'main thread'))
    .option('--config <file>', 'service config (YAML or JSON)')
    .option('--filter <regexp>', 'only cases whose id or file:line matches')
    .option('--examples', 'also score each registered verifier\'s example: its reward with the services it requires configured, else ABORTED service_unavailable')
    .option('--update', 'write each failing case\'s current result as its expectation (each change is printed first)')
    .option('-v, --verbose', 'list passing cases too')
    .addHelpText('after', '\nexpect: any of status, reward (with tolerance), reason, reasonMatches (a regular expression), details (a subset). Exit 1 when a case fails.')
    .action(async (paths: string[], opts: { workers: number; config?: string; verbose?: boolean; filter?: string; update?: boolean; examples?: boolean }) => {
      if (paths.length === 0 && !opts.examples) throw new Error('give case files or folders, or --examples');
      const { applyUpdates, checkCases, renderReports } = await import('./check');
      const { reports, cases } = await checkCases(paths, {
        workers: opts.workers,
        config: config(opts.config),
        examples: opts.examples === true,
        ...(opts.filter !== undefined ? { filter: opts.filter } : {}),
      });
      if (cases.length === 0) throw new Error(`no cases found in ${[...paths, ...(opts.examples ? ['the examples'] : [])].join(', ')}${opts.filter ? ` matching /${opts.filter}/` : ''}`);
      if (opts.update) {
        const updated = applyUpdates(reports, cases, (line) => process.stdout.write(line + '\n'));
        const broken = reports.filter((r) => !r.passed && !r.result);
        process.stdout.write(renderReports(broken, false).replace(/\d+ passed, \d+ failed$/, '') + `${updated} cases updated, ${broken.length} cases cannot be updated (fix them by hand)\n`);
        if (broken.length > 0) process.exitCode = 1;
        return;
      }
      process.stdout.write(renderReports(reports, opts.verbose === true) + '\n');
      if (reports.some((r) => !r.passed)) process.exitCode = 1;
    });
}

/** `verdict verifiers`: one line per verifier, or with `json` each one's card (core/registry.ts). */
export function renderVerifiers(registry: Registry, json: boolean): string {
  if (json) return JSON.stringify(registry.cards(), null, 2) + '\n';
  const list = registry.list();
  const width = Math.max(...list.map((v) => v.name.length)) + 1;
  return list.map((v) => `${v.name.padEnd(width)} ${v.version.padEnd(8)} ${v.description}\n`).join('');
}

export function addDiffCommand(cli: Command): void {
  cli
    .command('diff')
    .description('what changed between two results files of the same input: per verifier rewards, flips, means, status changes and their causes')
    .argument('<old>', 'earlier results (JSONL, .gz, .zst or Parquet written by verdict score)')
    .argument('<new>', 'later results of the same input')
    .addOption(new Option('--show <n>', 'changed samples to print with both results').argParser(integer('--show', 0)).default(10))
    .option('--json', 'print the report as JSON')
    .option('--fail-on-change', 'exit 1 when any result changed')
    .action(async (oldFile: string, newFile: string, opts: { show: number; json?: boolean; failOnChange?: boolean }) => {
      const { diffFiles, renderDiff } = await import('./diff');
      const report = await diffFiles(oldFile, newFile, { show: opts.show });
      process.stdout.write((opts.json ? JSON.stringify(report, null, 2) : renderDiff(report)) + '\n');
      const changed = report.totalChanged > 0 || report.onlyOld > 0 || report.onlyNew > 0;
      if (opts.failOnChange && changed) process.exitCode = 1;
    });
}
