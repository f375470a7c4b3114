import path from 'node:path';
import { packageRoot } from '../paths';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

export const PROTO_ROOT = path.join(packageRoot(), 'proto');
export const SCORE_PROTO = 'verdict/v1/score.proto';

/** How messages look in JS: camelCase fields, enums by name, proto3 optional as oneof (absent, not 0). */
export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_ROOT],
};

export function loadScoreProto(): { definition: protoLoader.PackageDefinition; scorer: grpc.ServiceClientConstructor } {
  const definition = protoLoader.loadSync(SCORE_PROTO, LOADER_OPTIONS);
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    verdict: { v1: { Scorer: grpc.ServiceClientConstructor } };
  };
  return { definition, scorer: loaded.verdict.v1.Scorer };
}
