// Apart from the schema (./index.ts, zod and yaml) so that the CLI can name a config error in its
// error line without loading them before a command needs a config.

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
