import * as grpc from '@grpc/grpc-js';
import { ScorerClient } from '../../services/grpc/client';
import { ServiceFailureLog, logRequest } from '../../services/log';
import type { RunningServer } from '../../services/server';
import type { ScoreResult } from '../../core/sample';
import { startTestServer } from '../fixtures/server';
import { sample } from '../fixtures/samples';
import { runCli } from '../fixtures/cli';
import { captureLogger, rawScore } from './helpers';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const batch = () => [
  sample({ id: 'right', verifier: 'qa', response: '\\boxed{C}', label: { choice: 'C' } }),
  sample({ id: 'wrong', verifier: 'qa', response: '\\boxed{B}', label: { choice: 'C' } }),
  sample({ id: 'unknown', verifier: 'nope', response: 'x' }),
  // No sandbox is configured: the code verifier answers ABORTED service_unavailable.
  sample({ id: 'code', verifier: 'code', response: '```python\ndef f():\n    return 1\n```', label: { mode: 'assert', tests: ['assert f() == 1'], fn_name: 'f' } }),
];

describe('request log lines and request ids', () => {
  let server: RunningServer;
  const capture = captureLogger('info');
  beforeAll(async () => {
    server = await startTestServer({ workers: 1, logger: capture.logger });
  });
  afterAll(() => server.shutdown());

  const requestLines = () => capture.lines().filter((l) => l['msg'] === 'request' || l['msg'] === 'request failed');

  it('the start-up line lists the verifiers and the services configured', () => {
    const start = capture.lines().find((l) => typeof l['msg'] === 'string' && (l['msg'] as string).startsWith('serving:'));
    expect(start).toMatchObject({ level: 'info', grpcPort: server.grpcPort, httpPort: server.httpPort, auth: 'none', tls: 'none' });
    expect(start!['verifiers']).toEqual(expect.arrayContaining(['qa@1.4.0', 'code@1.0.0', 'spin@1.0.0']));
    expect(start!['services']).toEqual({ sandbox: false, judge: [], rewardModel: [], jsIsolate: true });
  });

  it('gRPC: one line per call with samples, counts per status and the caller\'s x-request-id, echoed back', async () => {
    const metadata = new grpc.Metadata();
    metadata.set('x-request-id', 'trainer-step-7');
    const reply = await rawScore(`127.0.0.1:${server.grpcPort}`, batch(), metadata);
    expect(reply.error).toBeNull();
    expect(reply.headers?.get('x-request-id')).toEqual(['trainer-step-7']);
    const line = requestLines().find((l) => l['requestId'] === 'trainer-step-7');
    expect(line).toMatchObject({ level: 'info', api: 'grpc.Score', samples: 4, statuses: { OK: 2, INVALID: 1, ABORTED: 1 }, outcome: 'OK' });
    expect(typeof line!['durationMs']).toBe('number');
  });

  it('gRPC ScoreStream: the line counts the streamed results per status', async () => {
    const client = new ScorerClient(`127.0.0.1:${server.grpcPort}`);
    try {
      const streamed = await client.scoreStreamAll(batch());
      expect(streamed).toHaveLength(4);
    } finally {
      client.close();
    }
    const line = requestLines().find((l) => l['api'] === 'grpc.ScoreStream');
    expect(line).toMatchObject({ level: 'info', samples: 4, statuses: { OK: 2, INVALID: 1, ABORTED: 1 }, outcome: 'OK' });
    expect(line!['requestId']).toMatch(UUID);
  });

  it('gRPC ScoreStreamBatches: the line counts the results of every message per status', async () => {
    const client = new ScorerClient(`127.0.0.1:${server.grpcPort}`);
    try {
      expect((await client.scoreStreamBatchesAll(batch())).results).toHaveLength(4);
    } finally {
      client.close();
    }
    const line = requestLines().find((l) => l['api'] === 'grpc.ScoreStreamBatches');
    expect(line).toMatchObject({ level: 'info', samples: 4, statuses: { OK: 2, INVALID: 1, ABORTED: 1 }, outcome: 'OK' });
  });

  it('gRPC: a call the client cancels still gets its line, CANCELLED', async () => {
    const client = new ScorerClient(`127.0.0.1:${server.grpcPort}`);
    const stream = client.scoreStream(Array.from({ length: 4 }, () => sample({ verifier: 'spin', label: { ops: 2_000_000_000 } })));
    stream.on('error', () => {});
    const waitFor = async (what: () => boolean) => {
      for (let i = 0; i < 200 && !what(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    await waitFor(() => server.engine.pendingSamples() > 0);
    stream.cancel();
    client.close();
    await waitFor(() => requestLines().some((l) => l['outcome'] === 'CANCELLED'));
    const line = requestLines().find((l) => l['outcome'] === 'CANCELLED');
    expect(line).toMatchObject({ level: 'warn', api: 'grpc.ScoreStream', samples: 4, error: 'cancelled by the client' });
    // The cancel reached the engine too: its work is dropped, not left running.
    await waitFor(() => server.engine.pendingSamples() === 0);
    expect(server.engine.pendingSamples()).toBe(0);
  });

  it('gRPC: without an id, or with one that could forge a log line, a fresh UUID is generated and returned', async () => {
    const forged = new grpc.Metadata();
    forged.set('x-request-id', 'x", "level": "fatal');
    for (const metadata of [new grpc.Metadata(), forged]) {
      const reply = await rawScore(`127.0.0.1:${server.grpcPort}`, batch().slice(0, 1), metadata);
      const id = reply.headers?.get('x-request-id')[0];
      expect(id).toMatch(UUID);
      expect(requestLines().some((l) => l['requestId'] === id)).toBe(true);
    }
  });

  it('gRPC: a refused call is a warning with its status and reason', async () => {
    const metadata = new grpc.Metadata();
    metadata.set('x-request-id', 'too-big');
    const tooMany = Array.from({ length: server.engine.limits.maxBatchSamples + 1 }, () => sample({ verifier: 'qa' }));
    const reply = await rawScore(`127.0.0.1:${server.grpcPort}`, tooMany, metadata);
    expect(reply.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(reply.trailers?.get('x-request-id')).toEqual(['too-big']);
    const line = requestLines().find((l) => l['requestId'] === 'too-big');
    expect(line).toMatchObject({ level: 'warn', msg: 'request failed', api: 'grpc.Score', outcome: 'INVALID_ARGUMENT' });
    expect(line!['error']).toMatch(/exceed the limit/);
  });

  it('HTTP: one line per request, the id from the X-Request-Id header returned on the response', async () => {
    const response = await fetch(`http://127.0.0.1:${server.httpPort}/v1/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'http-1' },
      body: JSON.stringify({ samples: batch() }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('http-1');
    await response.json();
    const line = requestLines().find((l) => l['requestId'] === 'http-1');
    expect(line).toMatchObject({ api: 'http POST /v1/score', samples: 4, statuses: { OK: 2, INVALID: 1, ABORTED: 1 }, outcome: 200 });

    const generated = await fetch(`http://127.0.0.1:${server.httpPort}/v1/score`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(generated.status).toBe(400);
    const id = generated.headers.get('x-request-id');
    expect(id).toMatch(UUID);
    await generated.text();
    await new Promise((resolve) => setImmediate(resolve));
    expect(requestLines().find((l) => l['requestId'] === id)).toMatchObject({ outcome: 400, samples: 0 });
  });

  it('a service that fails samples gives a rate-limited warning naming the service and the reason', () => {
    const failures = capture.lines().filter((l) => l['msg'] === 'service failed a sample');
    // Three code samples were ABORTED above (Score, ScoreStream, HTTP). How many lines they fold into
    // depends on how long the tests took; ServiceFailureLog's own test checks the window with a clock
    // it controls.
    expect(failures.length).toBeGreaterThanOrEqual(1);
    expect(failures[0]).toMatchObject({ level: 'warn', service: 'sandbox', reason: 'service_unavailable', verifier: 'code', suppressed: 0 });
  });
});

describe('ServiceFailureLog', () => {
  const result = (reason: string, verifier = 'search', details: ScoreResult['details'] = {}): ScoreResult => ({
    id: '',
    index: 0,
    status: 'ABORTED',
    reason,
    verifier,
    verifierVersion: '1.0.0',
    details,
  });

  it('one line per service and reason per interval, counting what it folded; deadlines and shutdowns are not failures', () => {
    const { logger, lines } = captureLogger();
    let now = 0;
    const log = new ServiceFailureLog(logger, 10_000, () => now);
    for (let i = 0; i < 5; i++) log.onResult(result('judge_timeout', 'search', { judge_error: 'timed out after 30000 ms' }));
    log.onResult(result('judge_http_5xx'));
    log.onResult(result('rm_unreachable', 'rlhf', { message: 'ECONNREFUSED' }));
    log.onResult(result('deadline'));
    log.onResult(result('shutdown'));
    log.onResult({ ...result('x'), status: 'OK', reward: 1 });
    now = 10_000;
    log.onResult(result('judge_timeout'));
    expect(lines().map((l) => [l['service'], l['reason'], l['suppressed'], l['error']])).toEqual([
      ['judge', 'judge_timeout', 0, 'timed out after 30000 ms'],
      ['judge', 'judge_http_5xx', 0, undefined],
      ['rewardModel', 'rm_unreachable', 0, 'ECONNREFUSED'],
      ['judge', 'judge_timeout', 4, undefined],
    ]);
  });
});

describe('log levels', () => {
  it('below the level nothing is written; a failed request is a warning', () => {
    const { logger, lines } = captureLogger('warn');
    const record = { api: 'grpc.Score', requestId: 'r', samples: 1, statuses: { OK: 1 }, durationMs: 1 };
    logRequest(logger, { ...record, outcome: 'OK' });
    logRequest(logger, { ...record, outcome: 'UNAVAILABLE' });
    logRequest(logger, { ...record, outcome: 503 });
    expect(lines().map((l) => [l['level'], l['outcome']])).toEqual([
      ['warn', 'UNAVAILABLE'],
      ['warn', 503],
    ]);
  });

  it('serve --log-level names the accepted levels when given another', async () => {
    const run = await runCli(['serve', '--log-level', 'loud']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/--log-level.*loud.*fatal, error, warn, info, debug, trace, silent|Allowed choices are fatal, error, warn, info, debug, trace, silent/s);
  });
});
