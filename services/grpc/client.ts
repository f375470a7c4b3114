import * as grpc from '@grpc/grpc-js';
import type { GroupSummary } from '../../core/groups';
import type { Sample, ScoreResult } from '../../core/sample';
import type { DecodedResult } from '../wire/binary';
import { resultToJson } from '../wire/json';
import { MAX_MESSAGE_BYTES } from './server';
import { grpcClientAuth, type ClientAuth } from '../auth';
import { scorerService, type ListedVerifier, type ScoreRequestOut } from './service';

/** A result as ScoreStream's raw stream yields it: its proto3 JSON form, with the group summary on a group's last. */
export type StreamMessage = ReturnType<typeof resultToJson> & { group?: GroupSummary };

interface RawClient extends grpc.Client {
  Score(
    request: ScoreRequestOut,
    options: grpc.CallOptions,
    callback: (error: grpc.ServiceError | null, response: { results: DecodedResult[]; groups: GroupSummary[] }) => void,
  ): void;
  ScoreStream(request: ScoreRequestOut, options: grpc.CallOptions): grpc.ClientReadableStream<DecodedResult>;
  ScoreStreamBatches(request: ScoreRequestOut, options: grpc.CallOptions): grpc.ClientReadableStream<DecodedBatch>;
  ListVerifiers(request: unknown, callback: (error: grpc.ServiceError | null, response: ListedVerifier[]) => void): void;
}

type DecodedBatch = { results: DecodedResult[]; groups: GroupSummary[] };

/** One ScoreStreamBatches message: results that became ready together, and the groups they complete. */
export interface StreamBatch {
  results: ScoreResult[];
  groups: GroupSummary[];
}

const RawScorerClient = grpc.makeGenericClientConstructor(scorerService(), 'verdict.v1.Scorer');

/** The result without what ScoreResult does not have (a copy only when there is something to drop). */
function plain(decoded: DecodedResult): ScoreResult {
  if (decoded.group === undefined && decoded.advantage === undefined) return decoded;
  const { group: _group, advantage: _advantage, ...result } = decoded;
  return result;
}

/** A typed grpc-js client of the Scorer service (used by the demo, the benchmarks and the tests). */
export class ScorerClient {
  private readonly raw: RawClient;

  /** `auth`: a bearer token and/or TLS, for a server started with them. */
  constructor(address: string, auth: ClientAuth = {}) {
    const { credentials, interceptors } = grpcClientAuth(auth);
    this.raw = new RawScorerClient(address, credentials, {
      'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
      'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
      interceptors,
    }) as unknown as RawClient;
  }

  score(samples: readonly Sample[], options: { deadlineMs?: number } = {}): Promise<{ results: ScoreResult[]; groups: GroupSummary[] }> {
    const callOptions: grpc.CallOptions = options.deadlineMs ? { deadline: Date.now() + options.deadlineMs } : {};
    return new Promise((resolve, reject) =>
      this.raw.Score({ samples }, callOptions, (error, response) => {
        if (error) return reject(error);
        resolve({ results: response.results.map(plain), groups: response.groups });
      }),
    );
  }

  /** Each result as the server decides it, in its proto3 JSON form; `cancel()` cancels the call (its queued work is dropped server-side). */
  scoreStream(
    samples: readonly Sample[],
    options: { deadlineMs?: number } = {},
  ): NodeJS.ReadableStream & AsyncIterable<StreamMessage> & { cancel(): void } {
    const callOptions: grpc.CallOptions = options.deadlineMs ? { deadline: Date.now() + options.deadlineMs } : {};
    const call = this.raw.ScoreStream({ samples }, callOptions);
    // The call's error reaches the caller through `messages` (map iterates the call); this listener
    // only keeps the call itself from raising it as unhandled.
    call.on('error', () => {});
    const messages = call.map((result: DecodedResult): StreamMessage => {
      const message: StreamMessage = resultToJson(result);
      if (result.group) message.group = result.group;
      return message;
    }) as unknown as NodeJS.ReadableStream & AsyncIterable<StreamMessage>;
    return Object.assign(messages, { cancel: () => call.cancel() });
  }

  /** Collects a whole stream, in arrival order (from its events: an async iterator cost a promise per result). */
  scoreStreamAll(samples: readonly Sample[], options: { deadlineMs?: number } = {}): Promise<ScoreResult[]> {
    const callOptions: grpc.CallOptions = options.deadlineMs ? { deadline: Date.now() + options.deadlineMs } : {};
    return new Promise((resolve, reject) => {
      const out: ScoreResult[] = [];
      const call = this.raw.ScoreStream({ samples }, callOptions);
      call.on('data', (result: DecodedResult) => out.push(plain(result)));
      call.on('error', reject);
      call.on('end', () => resolve(out));
    });
  }

  /** ScoreStreamBatches: each message as it comes; `cancel()` cancels the call. */
  scoreStreamBatches(samples: readonly Sample[], options: { deadlineMs?: number } = {}): NodeJS.ReadableStream & AsyncIterable<StreamBatch> & { cancel(): void } {
    const callOptions: grpc.CallOptions = options.deadlineMs ? { deadline: Date.now() + options.deadlineMs } : {};
    const call = this.raw.ScoreStreamBatches({ samples }, callOptions);
    call.on('error', () => {});
    const batches = call.map((batch: DecodedBatch): StreamBatch => ({ results: batch.results.map(plain), groups: batch.groups })) as unknown as NodeJS.ReadableStream &
      AsyncIterable<StreamBatch>;
    return Object.assign(batches, { cancel: () => call.cancel() });
  }

  /** A whole ScoreStreamBatches call: every result and group summary in arrival order, and how many messages carried them. */
  scoreStreamBatchesAll(samples: readonly Sample[], options: { deadlineMs?: number } = {}): Promise<StreamBatch & { messages: number }> {
    const callOptions: grpc.CallOptions = options.deadlineMs ? { deadline: Date.now() + options.deadlineMs } : {};
    return new Promise((resolve, reject) => {
      const out: StreamBatch & { messages: number } = { results: [], groups: [], messages: 0 };
      const call = this.raw.ScoreStreamBatches({ samples }, callOptions);
      call.on('data', (batch: DecodedBatch) => {
        out.messages++;
        for (const result of batch.results) out.results.push(plain(result));
        out.groups.push(...batch.groups);
      });
      call.on('error', reject);
      call.on('end', () => resolve(out));
    });
  }

  listVerifiers(): Promise<ListedVerifier[]> {
    return new Promise((resolve, reject) => this.raw.ListVerifiers({}, (error, response) => (error ? reject(error) : resolve(response))));
  }

  close(): void {
    this.raw.close();
  }
}
