import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { checkAgainst } from '../../core/label';
import { jsIsolateConfigSection } from '../js-isolate/config';
import { judgeConfigSection } from '../judge/config';
import { rewardModelConfigSchema } from '../reward-model/config';
import { sandboxConfigSection } from '../sandbox/config';

/**
 * The one config file of `verdict serve --config` / `verdict score --config` (YAML or JSON). Each
 * service adds its own section here; every key is validated at start-up and errors name the key.
 */
export const configSchema = z.strictObject({
  judge: judgeConfigSection.optional(),
  jsIsolate: jsIsolateConfigSection.optional(),
  rewardModel: rewardModelConfigSchema.optional(),
  sandbox: sandboxConfigSection.optional(),
});

export type VerdictConfig = z.output<typeof configSchema>;

export class ConfigError extends Error {}

export function parseConfig(value: unknown, source = 'config'): VerdictConfig {
  const checked = checkAgainst(configSchema, value ?? {}, source);
  if (!checked.ok) throw new ConfigError(checked.error);
  return checked.value;
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
