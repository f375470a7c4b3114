import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from './paths';

/** The version in package.json: what `verdict --version` prints and the start-up log line carries. */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new Error('package.json has no version');
  return manifest.version;
}
