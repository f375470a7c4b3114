import { existsSync } from 'node:fs';
import path from 'node:path';

/** The package root (the folder holding package.json), from sources or from any compiled copy. */
export function packageRoot(from: string = __dirname): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
  return dir;
}
