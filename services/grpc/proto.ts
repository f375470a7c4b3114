import path from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import { packageRoot } from '../paths';

export const PROTO_ROOT = path.join(packageRoot(), 'proto');
export const SCORE_PROTO = 'verdict/v1/score.proto';

/** The proto files as server reflection publishes them (the messages themselves are generated: services/wire/gen). */
export function loadScoreDefinition(): protoLoader.PackageDefinition {
  return protoLoader.loadSync(SCORE_PROTO, { includeDirs: [PROTO_ROOT] });
}
