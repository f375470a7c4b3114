import type { Command } from 'commander';

/**
 * Examples shown at the end of each command's --help, by the command's path (`curate dedup`): the
 * first thing a new user copies. Kept in one place so that every command has some (a test checks).
 */
export const EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  serve: [
    'verdict serve                                    # gRPC :50051, HTTP :8080 on 127.0.0.1',
    'verdict serve --config examples/verdict.yaml     # with the sandbox: code, puzzle, python rubrics',
    'verdict serve --host 0.0.0.0 --auth-token-file token.txt --workers 8',
  ],
  score: [
    'verdict score rollouts.jsonl -o results.jsonl',
    'verdict score examples/batch.jsonl --config examples/verdict.yaml -o results.jsonl --summary-json summary.json',
    'verdict score dump.parquet --preset verl --route openai/gsm8k=math:gold -o results.parquet',
    'verdict score rollouts.jsonl -o results.jsonl --resume      # after an interruption',
    'verdict score - < rollouts.jsonl > results.jsonl',
  ],
  check: ['verdict check verifiers/ examples/cases.jsonl --config verifiers/cases.config.yaml', 'verdict check my.cases.yaml --filter qa --update'],
  diff: ['verdict diff old-results.jsonl new-results.jsonl', 'verdict diff old.jsonl new.jsonl --json > diff.json && verdict report diff.json -o diff.html'],
  curate: [
    'verdict curate learnability results.jsonl --prompts prompts.parquet -o kept.parquet',
    'verdict curate dedup train.jsonl -o deduped.jsonl --removed removed.jsonl',
    'verdict curate decontam train.jsonl --benchmark aime=aime.jsonl -o clean.jsonl',
  ],
  'curate learnability': [
    'verdict curate learnability results.jsonl --prompts prompts.parquet -o kept.parquet --dropped dropped.jsonl',
    'verdict curate learnability rollouts.jsonl --score --config examples/verdict.yaml -o kept.jsonl',
    'verdict curate learnability teacher.jsonl --mode correctness -o solvable.jsonl',
  ],
  'curate dedup': ['verdict curate dedup train.jsonl -o deduped.jsonl --removed removed.jsonl   # key: the prompt field', 'verdict curate dedup train.parquet --text-field question -o deduped.parquet --clusters clusters.jsonl'],
  'curate decontam': [
    'verdict curate decontam train.jsonl --benchmark aime=aime.jsonl --benchmark gpqa=gpqa/ -o clean.jsonl --removed removed.jsonl',
    'verdict curate decontam code.jsonl --form code --benchmark lcb=livecodebench.jsonl -o clean.jsonl',
  ],
  'curate dense': [
    'verdict curate dense train.jsonl --benchmark aime24=aime24.jsonl --summary-json dense.json --candidates pairs.jsonl   # $VERDICT_EMBEDDINGS_DEFAULT_URL, _MODEL',
    'verdict report dense.json -o review.html   # mark each pair, export the decisions',
    'verdict curate dense train.jsonl --benchmark aime24=aime24.jsonl --decisions decisions.jsonl -o kept.jsonl --removed removed.jsonl',
  ],
  audit: ['verdict audit train.jsonl --config examples/verdict.yaml -o audit.json && verdict report audit.json -o audit.html', 'verdict audit --self'],
  report: [
    'verdict score rollouts.jsonl -o results.jsonl && verdict report results.jsonl -o report.html',
    'verdict report results.jsonl --input rollouts.jsonl -o report.html   # with each response',
    'verdict report diff.json -o diff.html                               # verdict diff --json',
  ],
  verifiers: ['verdict verifiers', 'verdict verifiers --json | jq \'.[] | select(.name == "math") | .labelSchema\''],
  doctor: ['verdict doctor', 'verdict doctor --config examples/verdict.yaml --json'],
  tasks: ['verdict tasks build harbor-tasks/ --config verdict.yaml   # terminal.docker endpoints'],
  'tasks build': [
    'verdict tasks build harbor-tasks/ --config verdict.yaml            # each task: <imagePrefix>-<id>:latest',
    'verdict tasks build harbor-tasks/log-count --socket /run/podman/podman.sock',
  ],
};

/** The command's path below the program: `curate dedup`. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Adds its examples to the help of every command that has some, all the way down. */
export function addExamples(cli: Command): void {
  for (const command of cli.commands) {
    const lines = EXAMPLES[commandPath(command)];
    if (lines) command.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`);
    addExamples(command);
  }
}
