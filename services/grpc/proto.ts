import path from 'node:path';
import { packageRoot } from '../paths';

export const PROTO_ROOT = path.join(packageRoot(), 'proto');
export const SCORE_PROTO = 'verdict/v1/score.proto';
