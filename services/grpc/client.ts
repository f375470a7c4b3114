import * as grpc from '@grpc/grpc-js';
import type { GroupSummary } from '../../core/groups';
import type { Sample, ScoreResult, Status } from '../../core/sample';
import type { VerifierInfo } from '../../core/registry';
import { sampleToProto, type ProtoResult } from '../wire/proto';
import { structToJson } from '../wire/struct';
import { MAX_MESSAGE_BYTES } from './server';
import { grpcClientAuth, type ClientAuth } from '../auth';
import { loadScoreProto } from './proto';

const STATUS_FROM_PROTO: Record<string, Status> = {
  STATUS_OK: 'OK',
  STATUS_INVALID: 'INVALID',
  STATUS_ABORTED: 'ABORTED',
};

export function resultFromProto(message: ProtoResult): ScoreResult {
  const status = STATUS_FROM_PROTO[message.status];
  if (!status) throw new Error(`result ${message.index}: unexpected status ${message.status}`);
  const result: ScoreResult = {
    id: message.id,
    index: message.index,
    status,
    reason: message.reason,
    verifier: message.verifier,
    verifierVersion: message.verifierVersion,
    details: structToJson(message.details),
  };
  if (message.reward !== undefined && message.reward !== null) result.reward = message.reward;
  return result;
}

/**
 * proto-loader marks each proto3 `optional` field with a synthetic oneof (`_meanReward: 'meanReward'`)
 * and leaves unset ones null: drop both, so an absent value is absent.
 */
export function groupFromProto(message: Record<string, unknown>): GroupSummary {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(message)) {
    if (!key.startsWith('_') && value !== null && value !== undefined) out[key] = value;
  }
  return out as unknown as GroupSummary;
}

interface RawClient extends grpc.Client {
  Score(request: unknown, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, response: unknown) => void): void;
  ScoreStream(request: unknown, options: grpc.CallOptions): grpc.ClientReadableStream<ProtoResult>;
  ListVerifiers(request: unknown, callback: (error: grpc.ServiceError | null, response: unknown) => void): void;
}

/** A typed grpc-js client of the Scorer service (used by the demo, the benchmarks and the tests). */
export class ScorerClient {
  private readonly raw: RawClient;

  /** `auth`: a bearer token and/or TLS, for a server started with them. */
  constructor(address: string, auth: ClientAuth = {}) {
    const { scorer } = loadScoreProto();
    const { credentials, interceptors } = grpcClientAuth(auth);
    this.raw = new scorer(address, credentials, {
      'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
      'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
      interceptors,
    }) as unknown as RawClient;
  }

  score(samples: readonly Sample[], options: { deadlineMs?: number } = {}): Promise<{ results: ScoreResult[]; groups: GroupSummary[] }> {
    const callOptions: grpc.CallOptions = options.deadlineMs ? { deadline: Date.now() + options.deadlineMs } : {};
    return new Promise((resolve, reject) =>
      this.raw.Score({ samples: samples.map(sampleToProto) }, callOptions, (error, response) => {
        if (error) return reject(error);
        const body = response as { results: ProtoResult[]; groups: Array<Record<string, unknown>> };
        resolve({ results: body.results.map(resultFromProto), groups: body.groups.map(groupFromProto) });
      }),
    );
  }

  /** The raw stream; results arrive as they are decided. */
  scoreStream(samples: readonly Sample[], options: { deadlineMs?: number } = {}): grpc.ClientReadableStream<ProtoResult> {
    const callOptions: grpc.CallOptions = options.deadlineMs ? { deadline: Date.now() + options.deadlineMs } : {};
    return this.raw.ScoreStream({ samples: samples.map(sampleToProto) }, callOptions);
  }

  /** Collects a whole stream, in arrival order. */
  async scoreStreamAll(samples: readonly Sample[], options: { deadlineMs?: number } = {}): Promise<ScoreResult[]> {
    const out: ScoreResult[] = [];
    const stream = this.scoreStream(samples, options);
    for await (const message of stream) out.push(resultFromProto(message as ProtoResult));
    return out;
  }

  listVerifiers(): Promise<VerifierInfo[]> {
    return new Promise((resolve, reject) =>
      this.raw.ListVerifiers({}, (error, response) =>
        error ? reject(error) : resolve((response as { verifiers: VerifierInfo[] }).verifiers),
      ),
    );
  }

  close(): void {
    this.raw.close();
  }
}
