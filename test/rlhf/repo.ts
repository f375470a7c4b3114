import path from 'node:path';
import { packageRoot } from '../../services/paths';

/** A path under ../shared/, the read-only reference material next to the repository. */
export const sharedDir = (...parts: string[]) => path.resolve(packageRoot(), '..', 'shared', ...parts);
