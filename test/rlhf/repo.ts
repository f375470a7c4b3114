export { sharedPath as sharedDir } from '../fixtures/shared';
