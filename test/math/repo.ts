import { existsSync } from 'node:fs';
import path from 'node:path';

/** The repository root: the nearest directory above this file holding package.json (works from dist-*). */
export function repoRoot(from: string = __dirname): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

/** A path under the shared, read-only material next to the repository (`../shared`). */
export function sharedPath(...parts: string[]): string {
  return path.resolve(repoRoot(), '..', 'shared', ...parts);
}
