import { Registry } from 'prom-client';
import { JudgeCache } from '../services/judge/cache';
import type { JudgeRequest } from '../core/ports/judge';
import { JudgeClient } from '../services/judge/client';
import { judgeMetrics } from '../services/judge/metrics';
import { gradeSchema, testSettings } from '../test/judge/harness';
import { FakeOpenAIServer } from '../test/fakes/fake-openai-server';

/**
 * Judge-client overhead per sample at 512 concurrent trajectories, against the fake
 * OpenAI-compatible server on loopback. Baseline: the same request bodies sent with bare `fetch`
 * and the replies JSON-parsed, at the same concurrency, in the same process and run. The
 * difference is what the client adds (openai package, schema validation, cache lookup and write,
 * limiter, metrics). Target: under 1 ms per sample.
 */

const TRAJECTORIES = 512;
const ROUNDS = 7;

function request(round: number, i: number): JudgeRequest<{ reasoning: string; score: number }> {
  const answer = i % 3 === 0 ? 'Paris' : `candidate ${round}-${i}`;
  return {
    schema: gradeSchema,
    messages: [
      {
        role: 'user',
        content: `Grade round ${round} sample ${i}.\n<correct_answer>\nParis\n</correct_answer>\n<response>\n${answer}\n</response>`,
      },
    ],
  };
}

interface Timing {
  wallMs: number;
  cpuMs: number;
}

async function timed(work: () => Promise<unknown>): Promise<Timing> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await work();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(): Promise<void> {
  const server = new FakeOpenAIServer();
  const baseUrl = await server.start();
  const cache = new JudgeCache(':memory:');
  const client = new JudgeClient(
    testSettings(baseUrl, { maxConcurrency: TRAJECTORIES, attemptTimeoutMs: 30_000, deadlineMs: 60_000 }),
    judgeMetrics(new Registry()),
    cache,
  );
  const url = `${baseUrl}/chat/completions`;
  const rawBody = (r: JudgeRequest<unknown>) =>
    JSON.stringify({
      model: server.model,
      messages: r.messages,
      temperature: 0,
      max_tokens: 256,
      response_format: { type: 'json_schema', json_schema: { name: r.schema.name, strict: true, schema: r.schema.jsonSchema } },
    });
  const raw = async (r: JudgeRequest<unknown>) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer x' }, body: rawBody(r) });
    const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
    return JSON.parse(body.choices[0]!.message.content) as unknown;
  };

  const rawRuns: Timing[] = [];
  const clientRuns: Timing[] = [];
  const cachedRuns: Timing[] = [];
  let failures = 0;
  try {
    for (let round = 0; round <= ROUNDS; round++) {
      const requests = Array.from({ length: TRAJECTORIES }, (_, i) => request(round, i));
      const rawRun = await timed(() => Promise.all(requests.map(raw)));
      const clientRun = await timed(async () => {
        const results = await Promise.all(requests.map((r) => client.judge(r)));
        failures += results.filter((x) => !x.ok).length;
      });
      const cachedRun = await timed(() => Promise.all(requests.map((r) => client.judge(r))));
      // Round 0 warms up the JIT and the connection pool.
      if (round === 0) continue;
      rawRuns.push(rawRun);
      clientRuns.push(clientRun);
      cachedRuns.push(cachedRun);
    }
  } finally {
    cache.close();
    await server.close();
  }

  const per = (runs: Timing[], key: keyof Timing) => median(runs.map((t) => t[key])) / TRAJECTORIES;
  const rawWall = per(rawRuns, 'wallMs');
  const clientWall = per(clientRuns, 'wallMs');
  const rawCpu = per(rawRuns, 'cpuMs');
  const clientCpu = per(clientRuns, 'cpuMs');
  const fmt = (ms: number) => `${ms.toFixed(3)} ms`;
  console.log(`judge client, ${TRAJECTORIES} concurrent trajectories, fake OpenAI-compatible server on loopback (median of ${ROUNDS} rounds)`);
  console.log(`  raw fetch round-trip (baseline): ${fmt(rawWall)} wall/sample, ${fmt(rawCpu)} CPU/sample, ${(1000 / rawWall).toFixed(0)} samples/s`);
  console.log(`  judge client:                    ${fmt(clientWall)} wall/sample, ${fmt(clientCpu)} CPU/sample, ${(1000 / clientWall).toFixed(0)} samples/s`);
  console.log(`  client overhead:                 ${fmt(clientWall - rawWall)} wall/sample, ${fmt(clientCpu - rawCpu)} CPU/sample (target < 1 ms)`);
  console.log(`  ratio client/raw:                ${(clientWall / rawWall).toFixed(2)}× wall, ${(clientCpu / rawCpu).toFixed(2)}× CPU`);
  console.log(`  cache hit (re-run):              ${fmt(per(cachedRuns, 'wallMs'))} wall/sample`);
  if (failures > 0) console.log(`  WARNING: ${failures} judge calls failed`);
}

if (require.main === module) {
  run().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
