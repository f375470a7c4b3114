import * as grpc from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { GroupStream, shapeGroups, type GroupOptions } from '../../core/groups';
import type { ScoreResult } from '../../core/sample';
import { RequestRefused, type Engine } from '../engine/engine';
import type { Metrics } from '../metrics';
import { addReflection } from '../reflection';
import { groupOptionsFromProto, type ProtoGroupOptions } from '../wire/group-options';
import { resultToProto, sampleFromProto, type ProtoSample } from '../wire/proto';
import { loadScoreProto } from './proto';

/** Largest request or response message, both directions (a 4,096-sample batch of long responses fits). */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

interface ScoreRequestMessage {
  samples?: ProtoSample[];
  groupOptions?: ProtoGroupOptions | null;
}

const REFUSAL_CODES: Record<RequestRefused['kind'], grpc.status> = {
  batch_too_large: grpc.status.INVALID_ARGUMENT,
  overloaded: grpc.status.RESOURCE_EXHAUSTED,
  shutting_down: grpc.status.UNAVAILABLE,
};

/**
 * Work for a call stops when it is cancelled, or shortly before its deadline so that the samples not
 * reached can still be sent back as ABORTED "deadline" instead of the whole call failing.
 */
function callSignal(call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>): {
  signal: AbortSignal;
  dispose(): void;
} {
  const controller = new AbortController();
  const onCancel = () => controller.abort('cancelled');
  call.on('cancelled', onCancel);
  let timer: NodeJS.Timeout | undefined;
  const deadline = call.getDeadline();
  const at = deadline instanceof Date ? deadline.getTime() : Number(deadline);
  if (Number.isFinite(at) && at > 0) {
    const budget = at - Date.now();
    const margin = Math.min(1000, Math.max(50, budget * 0.1));
    timer = setTimeout(() => controller.abort('deadline'), Math.max(0, budget - margin));
  }
  return {
    signal: controller.signal,
    dispose() {
      if (timer) clearTimeout(timer);
      call.removeListener('cancelled', onCancel);
    },
  };
}

function refusal(error: unknown, metrics: Metrics): Partial<grpc.StatusObject> {
  if (error instanceof RequestRefused) {
    metrics.refused.inc({ reason: error.kind });
    return { code: REFUSAL_CODES[error.kind], details: error.message };
  }
  return { code: grpc.status.INTERNAL, details: error instanceof Error ? error.message : String(error) };
}

function samplesOf(request: ScoreRequestMessage) {
  return (request.samples ?? []).map(sampleFromProto);
}

/** null when the request asks for no shaping; an INVALID_ARGUMENT status when its options are unusable. */
function groupOptionsOf(request: ScoreRequestMessage): { options: GroupOptions | null } | { error: Partial<grpc.StatusObject> } {
  if (!request.groupOptions) return { options: null };
  const parsed = groupOptionsFromProto(request.groupOptions);
  return parsed.ok ? { options: parsed.options } : { error: { code: grpc.status.INVALID_ARGUMENT, details: parsed.error } };
}

export interface GrpcServer {
  server: grpc.Server;
  port: number;
  health: HealthImplementation;
}

/** What the operator side adds to every call (request log, auth) and how the port is secured. */
export interface GrpcServerOps {
  interceptors?: grpc.ServerInterceptor[];
  credentials?: grpc.ServerCredentials;
}

/** The Scorer service, standard health and server reflection on one grpc-js server. */
export async function startGrpcServer(engine: Engine, metrics: Metrics, host: string, port: number, ops: GrpcServerOps = {}): Promise<GrpcServer> {
  const { scorer } = loadScoreProto();
  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
    interceptors: ops.interceptors ?? [],
  });

  server.addService(scorer.service, {
    Score(call: grpc.ServerUnaryCall<ScoreRequestMessage, unknown>, callback: grpc.sendUnaryData<unknown>) {
      const timer = metrics.requestSeconds.startTimer({ api: 'grpc.Score' });
      const samples = samplesOf(call.request);
      const groupOptions = groupOptionsOf(call.request);
      if ('error' in groupOptions) return callback(groupOptions.error);
      const { signal, dispose } = callSignal(call);
      engine.score(samples, { signal }).then(
        (results: ScoreResult[]) => {
          dispose();
          timer();
          const shaped = shapeGroups(samples, results, groupOptions.options);
          callback(null, { results: shaped.results.map((r) => resultToProto(r)), groups: shaped.groups });
        },
        (error: unknown) => {
          dispose();
          callback(refusal(error, metrics));
        },
      );
    },

    ScoreStream(call: grpc.ServerWritableStream<ScoreRequestMessage, unknown>) {
      const timer = metrics.requestSeconds.startTimer({ api: 'grpc.ScoreStream' });
      const samples = samplesOf(call.request);
      const groupOptions = groupOptionsOf(call.request);
      if ('error' in groupOptions) return call.emit('error', groupOptions.error);
      const groups = new GroupStream(samples, groupOptions.options);
      const send = (result: ScoreResult) => {
        for (const item of groups.push(result)) if (!call.cancelled) call.write(resultToProto(item.result, item.group));
      };
      const { signal, dispose } = callSignal(call);
      engine
        .score(samples, { signal, onResult: send })
        .then(
          () => {
            dispose();
            timer();
            call.end();
          },
          (error: unknown) => {
            dispose();
            call.emit('error', refusal(error, metrics));
          },
        );
    },

    ListVerifiers(_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) {
      callback(null, { verifiers: engine.registry.list() });
    },
  });

  const health = new HealthImplementation({ '': 'SERVING', 'verdict.v1.Scorer': 'SERVING' });
  health.addToServer(server);
  addReflection(server);

  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, ops.credentials ?? grpc.ServerCredentials.createInsecure(), (error, actual) =>
      error ? reject(error) : resolve(actual),
    ),
  );
  return { server, port: bound, health };
}
