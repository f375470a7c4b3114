import type { Sample } from '../core/sample';
import { ScorerClient } from '../services/grpc/client';
import { heading, percentile, row } from './timing';
import { qaBatch } from './qa';
import { rssMiB, startServerProcess } from './server-process';

/**
 * A bounded load test of one `verdict serve` process, as a trainer's clients would load it: a fixed
 * number of Score calls (not a duration), a fixed number of concurrent clients, mixed qa and math
 * samples. Prints latency percentiles, throughput, errors and the server's RSS before and after.
 */
const REQUESTS = 320;
const SAMPLES_PER_REQUEST = 64;
const CLIENTS = 8;
const WORKERS = 2;

function mathSample(i: number): Sample {
  const a = (i % 97) + 1;
  const b = (i % 89) + 2;
  const right = i % 3 !== 0;
  return {
    id: `m-${i}`,
    verifier: 'math',
    response: `We simplify. \\boxed{\\frac{${right ? a : a + 1}}{${b}}+\\sqrt{${(i % 7) + 2}}}`,
    label: { gold: `\\frac{${a * 2}}{${b * 2}}+\\sqrt{${(i % 7) + 2}}` },
    groupId: '',
    responseTokens: 0,
    metadata: {},
  };
}

/** Request `r`: half qa, half math, the same on every run. */
function request(r: number, qa: Sample[]): Sample[] {
  return Array.from({ length: SAMPLES_PER_REQUEST }, (_, k) => {
    const i = r * SAMPLES_PER_REQUEST + k;
    return k % 2 === 0 ? qa[i % qa.length]! : mathSample(i);
  });
}

export async function run(): Promise<void> {
  heading(`load: ${REQUESTS} Score calls × ${SAMPLES_PER_REQUEST} samples (qa + math), ${CLIENTS} concurrent clients, one server with ${WORKERS} workers`);
  const qa = qaBatch();
  const server = await startServerProcess(WORKERS);
  const clients = Array.from({ length: CLIENTS }, () => new ScorerClient(`127.0.0.1:${server.grpcPort}`));
  try {
    // Warm-up: worker threads started, code paths compiled; not measured.
    await Promise.all(clients.map((c, k) => c.score(request(REQUESTS + k, qa))));
    const rssBefore = rssMiB(server.pid);

    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    let errors = 0;
    let next = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      clients.map(async (client) => {
        for (let r = next++; r < REQUESTS; r = next++) {
          const t0 = process.hrtime.bigint();
          try {
            const { results } = await client.score(request(r, qa));
            for (const result of results) statuses[result.status] = (statuses[result.status] ?? 0) + 1;
          } catch {
            errors++;
          }
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const rssAfter = rssMiB(server.pid);

    latencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const widths = [40, 16];
    const line = (name: string, value: string) => process.stdout.write(row([name, value], widths) + '\n');
    line('requests', `${latencies.length} (errors: ${errors})`);
    line('results by status', JSON.stringify(statuses));
    line('latency p50 / p99 (ms)', `${p50.toFixed(1)} / ${p99.toFixed(1)}`);
    line('p99 ÷ p50', (p99 / p50).toFixed(2));
    line('throughput (requests/s)', (latencies.length / seconds).toFixed(1));
    line('throughput (samples/s)', ((latencies.length * SAMPLES_PER_REQUEST) / seconds).toFixed(0));
    line('server RSS before / after (MiB)', `${rssBefore.toFixed(1)} / ${rssAfter.toFixed(1)}`);
    line('RSS after ÷ RSS before', (rssAfter / rssBefore).toFixed(2));
    line('wall time (s)', seconds.toFixed(1));
    if (errors > 0 || (statuses['ABORTED'] ?? 0) > 0) process.exitCode = 1;
  } finally {
    for (const client of clients) client.close();
    await server.stop();
  }
}

if (require.main === module) void run();
