import path from 'node:path';
import type { RunningServer } from '../../services/server';
import { startTestServer } from '../fixtures/server';
import { OPS_TEST_DIR, reflectionDescriptorSet, runPython } from './python';

describe('server reflection, as a tool that knows nothing of Verdict uses it', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ workers: 1, httpPort: null });
  });
  afterAll(() => server.shutdown());

  it('lists Scorer, health and reflection; serves score.proto with its struct.proto import; a request built from it scores', async () => {
    const set = await reflectionDescriptorSet();
    const run = await runPython([path.join(OPS_TEST_DIR, 'reflection_client.py'), `127.0.0.1:${server.grpcPort}`, set]);
    if (run.code !== 0) throw new Error(`reflection client failed (exit ${run.code}):\n${run.output}`);
    const seen = JSON.parse(run.stdout) as {
      services: string[];
      files: Record<string, string[]>;
      reply: { results: Array<{ id: string; status: string; reward?: number }> };
    };
    expect(seen.services).toEqual([
      'grpc.health.v1.Health',
      'grpc.reflection.v1.ServerReflection',
      'grpc.reflection.v1alpha.ServerReflection',
      'verdict.v1.Scorer',
    ]);
    expect(seen.files).toEqual({
      'verdict/v1/score.proto': ['google/protobuf/struct.proto'],
      'google/protobuf/struct.proto': [],
    });
    expect(seen.reply.results).toEqual([expect.objectContaining({ id: 'r1', status: 'STATUS_OK', reward: 1 })]);
  }, 60_000);
});
