import { existsSync } from 'node:fs';
import path from 'node:path';

/** The repository root: the nearest directory above this file holding package.json (works from dist-*). */
export function repoRoot(from = __dirname): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}

export const sharedDir = (...parts: string[]) => path.resolve(repoRoot(), '..', 'shared', ...parts);
