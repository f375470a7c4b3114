import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { fieldPath } from '../../core/label';
import { agentStateConfigSection } from '../agent-state';
import { embeddingsConfigSection } from '../embeddings/config';
import { jsIsolateConfigSection } from '../js-isolate/config';
import { judgeConfigSection } from '../judge/config';
import { rewardModelConfigSchema } from '../reward-model/config';
import { sandboxConfigSection } from '../sandbox/config';
import { terminalConfigSection } from '../workspace/config';
import { trainersConfigSection } from '../http/config';

/**
 * The one config file of `verdict serve --config` / `verdict score --config` (YAML or JSON). Each
 * service adds its own section here; every key is validated at start-up and errors name the key.
 */
export const configSchema = z.strictObject({
  judge: judgeConfigSection.optional(),
  embeddings: embeddingsConfigSection.optional(),
  jsIsolate: jsIsolateConfigSection.optional(),
  rewardModel: rewardModelConfigSchema.optional(),
  sandbox: sandboxConfigSection.optional(),
  agentState: agentStateConfigSection.optional(),
  terminal: terminalConfigSection.optional(),
  trainers: trainersConfigSection.optional(),
});

/** A parsed config, with `source` (the file, or "config") that every later error names keys under. */
export type VerdictConfig = z.output<typeof configSchema> & { source?: string };

/**
 * A config that cannot be used. Every problem is one line in one style, `SOURCE.key.path: what`
 * (`verdict.yaml.judge.endpoints.search.url: required`), and all of them are reported at once.
 */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: string | readonly string[]) {
    const list = typeof problems === 'string' ? [problems] : problems;
    super(list.length === 1 ? list[0] : `${list.length} problems:\n  ${list.join('\n  ')}`);
    this.problems = list;
  }
}

/** `expected "auto"` and `expected number, received string` → `expected "auto" or number, received string`. */
function describeUnion(branches: readonly (readonly z.core.$ZodIssue[])[]): string | undefined {
  const expected: string[] = [];
  let received: string | undefined;
  for (const issues of branches) {
    const direct = issues.find((issue) => issue.path.length === 0);
    const m = direct && /^(?:Invalid input: )?expected (.+?)(?:, received (.+))?$/.exec(direct.message);
    if (!m) return undefined;
    if (!expected.includes(m[1]!)) expected.push(m[1]!);
    received ??= m[2];
  }
  if (expected.length === 0) return undefined;
  return `expected ${expected.join(' or ')}${received ? `, received ${received}` : ''}`;
}

/** One line per problem, each naming its key from `root`. */
export function configProblems(root: string, issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => `${fieldPath(root, [...issue.path, key])}: unknown field`);
    const union = issue.code === 'invalid_union' ? describeUnion(issue.errors) : undefined;
    return [`${fieldPath(root, issue.path)}: ${union ?? issue.message.replace(/^Invalid input: /, '')}`];
  });
}

export function parseConfig(value: unknown, source = 'config'): VerdictConfig {
  const parsed = configSchema.safeParse(value ?? {});
  if (!parsed.success) throw new ConfigError(configProblems(source, parsed.error.issues));
  return { ...parsed.data, source };
}

export function loadConfig(path: string): VerdictConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${path}: cannot read (${(error as Error).message})`);
  }
  let value: unknown;
  try {
    value = /\.json$/i.test(path) ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ConfigError(`${path}: not valid ${/\.json$/i.test(path) ? 'JSON' : 'YAML'} (${(error as Error).message})`);
  }
  return parseConfig(value, path);
}
