export { packageRoot as repoRoot } from '../../services/paths';
export { sharedPath } from '../fixtures/shared';
