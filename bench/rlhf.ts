import type { ChatMessage } from '../core/chat';
import { createRewardModels } from '../services/reward-model';
import { rewardModelConfigSchema } from '../services/reward-model/config';
import { FakeSglangServer } from '../test/fakes/fake-sglang-server';
import { bestOf, heading, row } from './timing';

/**
 * Reward-model client throughput (samples/s) for one RL step of 4096 rollouts against the fake
 * SGLang server on loopback (in this process, so its JSON work is counted too): batched requests
 * versus the one-request-per-sample baseline, at the same concurrency, in the same run. Measured
 * twice: with an instant server (what the client and HTTP cost) and with a modeled 5 ms forward
 * pass per request (a GPU scores a small batch in about the time of one sample).
 */

const SAMPLES = 4096;
const CONCURRENCY = 8;
const MAX_BATCH = 64;
const RUNS = 2;

function conversations(): ChatMessage[][] {
  const paragraph = 'The reward model reads the whole conversation, so a realistic sample is a few hundred words long. ';
  return Array.from({ length: SAMPLES }, (_, i) => [
    { role: 'user', content: `Question ${i}: explain why the sky is blue, briefly.` },
    { role: 'assistant', content: `<think>plan ${i}</think>\n\n${paragraph.repeat(8)}Answer ${i}.` },
  ]);
}

function endpoint(url: string, maxBatch: number) {
  const config = rewardModelConfigSchema.parse({
    endpoints: {
      rm: { server: 'sglang', url, model: 'Skywork/Skywork-Reward-V2-Qwen3-8B', chatTemplate: 'qwen3', maxBatch, maxConcurrency: CONCURRENCY },
    },
  });
  return createRewardModels(config).get('rm')!;
}

async function scoreAll(url: string, maxBatch: number, batch: ChatMessage[][]): Promise<number[]> {
  const rm = endpoint(url, maxBatch);
  const results = await Promise.all(batch.map((c) => rm.score(c)));
  return results.map((r) => {
    if (!r.ok) throw new Error(`bench sample failed: ${r.reason}: ${r.message}`);
    return r.score;
  });
}

export async function run(): Promise<void> {
  heading(`rlhf: reward-model client, ${SAMPLES} samples, concurrency ${CONCURRENCY}, fake SGLang on loopback`);
  const server = new FakeSglangServer();
  const url = await server.listen();
  const batch = conversations();
  const widths = [26, 16, 16, 26];
  process.stdout.write(row(['server', `batched (≤${MAX_BATCH})`, 'one per sample', 'batched / one per sample'], widths) + '\n');
  try {
    for (const latencyMs of [0, 5]) {
      server.latencyMs = latencyMs;
      const single = await bestOf(RUNS, () => scoreAll(url, 1, batch));
      const batched = await bestOf(RUNS, () => scoreAll(url, MAX_BATCH, batch));
      if (batched.value.some((score, i) => score !== single.value[i])) throw new Error('batched and single scores differ');
      const rate = (seconds: number) => SAMPLES / seconds;
      process.stdout.write(
        row(
          [
            latencyMs === 0 ? 'instant' : `${latencyMs} ms per request`,
            `${rate(batched.seconds).toFixed(0)} samples/s`,
            `${rate(single.seconds).toFixed(0)} samples/s`,
            `${(single.seconds / batched.seconds).toFixed(1)}x`,
          ],
          widths,
        ) + '\n',
      );
    }
  } finally {
    await server.close();
  }
}

if (require.main === module) void run();
