import { availableParallelism } from 'node:os';
import { InvalidArgumentError, Option } from 'commander';
import type { GroupOptions } from '../core/groups';
import type * as ConfigModule from '../services/config';
import type { VerdictConfig } from '../services/config';
import type * as GroupOptionsModule from '../services/wire/group-options';

// The config schema (zod, yaml) and the Score API's group options (the generated protobuf code) are
// required where a flag is read, not when the commands are defined: `verdict score` starts its pool
// threads first, and these load beside them (cli/score-command.ts).

/**
 * A mistake in how the command was called (a flag's value, a missing or unreadable argument): exit 2
 * with one line and a pointer to `--help`, as commander's own parse errors do.
 */
export class UsageError extends Error {}

/** Flag parsers and options shared by the commands. */
export function integer(name: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(max === Number.MAX_SAFE_INTEGER ? `${name} must be an integer ≥ ${min}` : `${name} must be an integer from ${min} to ${max}`);
    }
    return n;
  };
}

export function fraction(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError(`${name} must be a number from 0 to 1`);
    return n;
  };
}

export function groupOptionsArgument(value: string): GroupOptions {
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch (error) {
    throw new InvalidArgumentError(`not valid JSON (${(error as Error).message})`);
  }
  const parsed = (require('../services/wire/group-options') as typeof GroupOptionsModule).groupOptionsFromJson(json);
  if (!parsed.ok) throw new InvalidArgumentError(parsed.error);
  return parsed.options;
}

/** Repeatable flags (`--route a=math --route b=qa`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function config(path: string | undefined): VerdictConfig {
  const { loadConfig, parseConfig } = require('../services/config') as typeof ConfigModule;
  return path ? loadConfig(path) : parseConfig({});
}

export const workersOption = () =>
  new Option('--workers <n>', 'worker threads for CPU-bound verifiers (0 = main thread)')
    .argParser(integer('--workers', 0))
    .default(availableParallelism(), 'one per core');
