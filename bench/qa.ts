import type { JsonObject } from '../core/json';
import type { Sample } from '../core/sample';
import { ScorerClient } from '../services/grpc/client';
import { Engine } from '../services/engine/engine';
import { InlineExecutor, PoolExecutor } from '../services/pool/executor';
import { VERDICT_VERIFIERS } from '../services/pool-entry';
import { createRegistry } from '../verifiers';
import { startServerProcess } from './server-process';
import { bestOf, heading, row } from './timing';

const SUBJECTS = ['mitochondria', 'ribosome', 'chloroplast', 'nucleus', 'golgi apparatus', 'lysosome', 'vacuole'];

/** 4,096 deterministic qa samples: multiple choice and free text, right and wrong, some with reasoning. */
export function qaBatch(n = 4096): Sample[] {
  return Array.from({ length: n }, (_, i) => {
    const subject = SUBJECTS[i % SUBJECTS.length]!;
    const other = SUBJECTS[(i * 7 + 3) % SUBJECTS.length]!;
    const reasoning = `<think>${'Consider the organelles and their roles in the cell. '.repeat(1 + (i % 8))}</think>`;
    const choice = i % 2 === 0;
    const letter = 'ABCD'[i % 4]!;
    const response = choice
      ? `${reasoning}The answer is \\boxed{${i % 3 === 0 ? letter : 'ABCD'[(i + 1) % 4]}}.`
      : `${reasoning}Answer: ${i % 3 === 0 ? `The ${subject}` : other}`;
    return {
      id: `qa-${i}`,
      verifier: 'qa',
      response,
      label: (choice ? { choice: letter } : { answers: [subject] }) as JsonObject,
      groupId: `p${Math.floor(i / 16)}`,
      responseTokens: response.length >> 2,
      metadata: {},
    };
  });
}

export async function run(): Promise<void> {
  heading('qa: 4,096 samples, in-process vs through gRPC (`verdict serve --workers 2` in its own process, the Node client)');
  const batch = qaBatch();
  const registry = createRegistry();
  const widths = [34, 14, 28];
  process.stdout.write(row(['path', 'samples/s', 'vs in-process main thread'], widths) + '\n');

  const inline = new Engine({ registry, executor: new InlineExecutor(registry) });
  await inline.score(batch);
  const base = await bestOf(5, () => inline.score(batch));
  const baseRate = batch.length / base.seconds;
  process.stdout.write(row(['in-process, main thread (baseline)', baseRate.toFixed(0), '1.00'], widths) + '\n');

  const pool = new Engine({ registry, executor: new PoolExecutor(VERDICT_VERIFIERS, 2) });
  // Warm every thread (JIT) before timing, as the main thread is by its own runs.
  for (let i = 0; i < 3; i++) await pool.score(batch);
  const pooled = await bestOf(5, () => pool.score(batch));
  await pool.close();
  const line = (name: string, seconds: number) =>
    process.stdout.write(row([name, (batch.length / seconds).toFixed(0), (batch.length / seconds / baseRate).toFixed(2)], widths) + '\n');
  line('in-process, 2 worker threads', pooled.seconds);

  // The server in a process of its own, as deployed: the client's encoding and decoding are not the server's work.
  const server = await startServerProcess(2);
  const client = new ScorerClient(`127.0.0.1:${server.grpcPort}`);
  try {
    await client.score(batch);
    line('gRPC Score (unary), 2 workers', (await bestOf(3, () => client.score(batch))).seconds);
    line('gRPC ScoreStream, 2 workers', (await bestOf(3, () => client.scoreStreamAll(batch))).seconds);
  } finally {
    client.close();
    await server.stop();
  }
}

if (require.main === module) void run();
