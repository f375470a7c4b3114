import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { grpcClientAuth, type ClientAuth } from '../../services/auth';
import { scorerService, type ScoreRequestOut } from '../../services/grpc/service';
import { createLogger, type Logger, type LogLevel } from '../../services/log';
import type { Sample } from '../../core/sample';

/** A real pino logger writing into memory: each line parsed back from its JSON. */
export function captureLogger(level: LogLevel = 'debug'): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const raw: string[] = [];
  const logger = createLogger(level, { write: (line: string) => void raw.push(line) });
  return { logger, lines: () => raw.flatMap((chunk) => chunk.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>)) };
}

export interface RawReply {
  error: grpc.ServiceError | null;
  response: { results?: Array<{ status: string }> } | undefined;
  headers: grpc.Metadata | null;
  trailers: grpc.Metadata | null;
}

/** One Score call with chosen metadata, keeping the response headers and trailers the typed client hides. */
export function rawScore(
  address: string,
  samples: Sample[],
  metadata = new grpc.Metadata(),
  auth: ClientAuth = {},
  groupOptions?: ScoreRequestOut['groupOptions'],
): Promise<RawReply> {
  const Scorer = grpc.makeGenericClientConstructor(scorerService(), 'verdict.v1.Scorer');
  const { credentials, interceptors } = grpcClientAuth(auth);
  const client = new Scorer(address, credentials, { interceptors }) as unknown as grpc.Client & {
    Score(request: ScoreRequestOut, metadata: grpc.Metadata, callback: (error: grpc.ServiceError | null, response: unknown) => void): grpc.ClientUnaryCall;
  };
  return new Promise((resolve) => {
    let headers: grpc.Metadata | null = null;
    let outcome: { error: grpc.ServiceError | null; response: unknown } | null = null;
    let trailers: grpc.Metadata | null = null;
    const finish = () => {
      if (!outcome || !trailers) return;
      client.close();
      resolve({ ...outcome, response: outcome.response as RawReply['response'], headers, trailers });
    };
    const call = client.Score({ samples, ...(groupOptions ? { groupOptions } : {}) }, metadata, (error, response) => {
      outcome = { error, response };
      finish();
    });
    call.on('metadata', (m: grpc.Metadata) => (headers = m));
    call.on('status', (s: grpc.StatusObject) => {
      trailers = s.metadata;
      finish();
    });
  });
}

/** `grpc.health.v1.Health/Check` for the whole server (""), as kubelet's gRPC probe asks it. */
export function healthCheck(address: string, auth: ClientAuth = {}): Promise<{ status?: string; error?: grpc.ServiceError }> {
  const definition = protoLoader.loadSync(healthProtoPath, { keepCase: true, enums: String, defaults: true });
  const Health = (grpc.loadPackageDefinition(definition) as unknown as { grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } } }).grpc
    .health.v1.Health;
  const { credentials, interceptors } = grpcClientAuth(auth);
  const client = new Health(address, credentials, { interceptors }) as unknown as grpc.Client & {
    Check(request: unknown, callback: (error: grpc.ServiceError | null, response: { status: string }) => void): void;
  };
  return new Promise((resolve) =>
    client.Check({ service: '' }, (error, response) => {
      client.close();
      resolve(error ? { error } : { status: response.status });
    }),
  );
}
