import type { Sample } from '../core/sample';
import { ScorerClient } from '../services/grpc/client';
import { heading, percentile, row } from './timing';
import { qaBatch } from './qa';
import { processCpu, rssMiB, startServerProcess } from './server-process';

/**
 * A bounded load test of one `verdict serve` process, as a trainer's clients would load it: a fixed
 * number of Score calls (not a duration), a fixed number of concurrent clients, mixed qa and math
 * samples. Prints latency percentiles, throughput, errors, the server's CPU per call (its main
 * thread and its other threads, from /proc) and its RSS before and after; then the same for calls of
 * one sample each, the fixed cost of a call that per-sample trainer routes pay on every sample.
 */
const REQUESTS = 320;
const SINGLE_REQUESTS = 2_000;
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
    const cpuBefore = processCpu(server.pid);

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
    const cpu = processCpu(server.pid);
    const perCall = (a: number, b: number, calls: number) => ((1e6 * (a - b)) / calls).toFixed(0);

    latencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const widths = [48, 16];
    const line = (name: string, value: string) => process.stdout.write(row([name, value], widths) + '\n');
    line('requests', `${latencies.length} (errors: ${errors})`);
    line('results by status', JSON.stringify(statuses));
    line('latency p50 / p99 (ms)', `${p50.toFixed(1)} / ${p99.toFixed(1)}`);
    line('p99 ÷ p50', (p99 / p50).toFixed(2));
    line('throughput (requests/s)', (latencies.length / seconds).toFixed(1));
    line('throughput (samples/s)', ((latencies.length * SAMPLES_PER_REQUEST) / seconds).toFixed(0));
    line('server CPU per call, main / other threads (µs)', `${perCall(cpu.main, cpuBefore.main, REQUESTS)} / ${perCall(cpu.others, cpuBefore.others, REQUESTS)}`);
    line('server RSS before / after (MiB)', `${rssBefore.toFixed(1)} / ${rssAfter.toFixed(1)}`);
    line('RSS after ÷ RSS before', (rssAfter / rssBefore).toFixed(2));
    line('wall time (s)', seconds.toFixed(1));

    // Calls of one math sample each, from the same clients.
    const single = [mathSample(0)];
    let singleErrors = 0;
    const oneSampleCalls = async (calls: number) => {
      let nextCall = 0;
      await Promise.all(
        clients.map(async (client) => {
          while (nextCall++ < calls) await client.score(single).catch(() => singleErrors++);
        }),
      );
    };
    await oneSampleCalls(SINGLE_REQUESTS / 4); // warm-up
    const singleCpu = processCpu(server.pid);
    const singleStart = process.hrtime.bigint();
    await oneSampleCalls(SINGLE_REQUESTS);
    const singleSeconds = Number(process.hrtime.bigint() - singleStart) / 1e9;
    const singleCpuAfter = processCpu(server.pid);
    line(`${SINGLE_REQUESTS} calls of 1 sample: calls/s`, `${(SINGLE_REQUESTS / singleSeconds).toFixed(0)} (errors: ${singleErrors})`);
    line('server CPU per 1-sample call, main / other (µs)', `${perCall(singleCpuAfter.main, singleCpu.main, SINGLE_REQUESTS)} / ${perCall(singleCpuAfter.others, singleCpu.others, SINGLE_REQUESTS)}`);
    if (errors > 0 || singleErrors > 0 || (statuses['ABORTED'] ?? 0) > 0) process.exitCode = 1;
  } finally {
    for (const client of clients) client.close();
    await server.stop();
  }
}

if (require.main === module) void run();
