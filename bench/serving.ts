import type { Sample } from '../core/sample';
import { parseConfig } from '../services/config';
import { Engine } from '../services/engine/engine';
import { Scorer } from '../services/engine/scorer';
import { ScorerClient } from '../services/grpc/client';
import { InlineExecutor, PoolExecutor } from '../services/pool/executor';
import { startServer, type RunningServer } from '../services/server';
import { createRegistry } from '../verifiers';
import { loadMathBatch } from './math';
import { heading, row } from './timing';

/**
 * The serving path against scoring itself (issue 14): the same 4,096-sample math batch in-process
 * (main thread, 2-thread pool) and through a server (`--workers 1` and `2`) by gRPC Score, gRPC
 * ScoreStream and HTTP /v1/score, with the project's Node client on the same machine. The paths
 * take turns, round after round, so a busy moment of a shared machine falls on all of them; each
 * path's figure is its best round. Every ratio divides by the best in-process figure of this run.
 */

const ROUNDS = 5;

type Path = { name: string; run(): Promise<{ seconds: number; cpu: number }> };

function rssMiB(): number {
  return process.memoryUsage().rss / 2 ** 20;
}

/** Wall seconds and CPU seconds of this process (all its threads: client, server, pool) for one batch. */
async function timedRun(fn: () => Promise<unknown>): Promise<{ seconds: number; cpu: number }> {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(cpu);
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, cpu: (used.user + used.system) / 1e6 };
}

export async function run(): Promise<void> {
  heading('serving: 4,096 math samples (../shared/bench/math_batch_4096.jsonl) in-process and through the server');
  const samples: Sample[] = loadMathBatch().map((s) => ({ ...s, groupId: '' }));
  const registry = createRegistry();
  const inline = new Engine({ registry, executor: new InlineExecutor(registry) });
  const pool = new Engine({ registry, executor: new PoolExecutor(2) });
  const servers: RunningServer[] = [];
  const clients: ScorerClient[] = [];
  const idleRss = rssMiB();
  let peakRss = idleRss;
  try {
    const paths: Path[] = [
      { name: 'in-process, main thread (Scorer)', run: () => timedRun(() => new Scorer(inline).score({ samples, groupOptions: null })) },
      { name: 'in-process, 2-thread pool (Scorer)', run: () => timedRun(() => new Scorer(pool).score({ samples, groupOptions: null })) },
    ];
    for (const workers of [1, 2]) {
      const server = await startServer({ host: '127.0.0.1', grpcPort: 0, httpPort: 0, workers, config: parseConfig({}) });
      servers.push(server);
      const client = new ScorerClient(`127.0.0.1:${server.grpcPort}`);
      clients.push(client);
      const body = JSON.stringify({ samples });
      paths.push(
        { name: `gRPC Score, --workers ${workers}`, run: () => timedRun(() => client.score(samples)) },
        { name: `gRPC ScoreStream, --workers ${workers}`, run: () => timedRun(() => client.scoreStreamAll(samples)) },
        {
          name: `HTTP /v1/score, --workers ${workers}`,
          run: () =>
            timedRun(async () => {
              const res = await fetch(`http://127.0.0.1:${server.httpPort}/v1/score`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
              await res.json();
            }),
        },
      );
    }
    const best = new Map<string, { seconds: number; cpu: number }>();
    for (let round = 0; round <= ROUNDS; round++) {
      for (const path of paths) {
        const measured = await path.run();
        peakRss = Math.max(peakRss, rssMiB());
        // Round 0 warms up (JIT, gold caches in every thread).
        if (round > 0 && measured.seconds < (best.get(path.name)?.seconds ?? Infinity)) best.set(path.name, measured);
      }
    }
    const rate = (name: string) => samples.length / best.get(name)!.seconds;
    const baseline = Math.max(rate(paths[0]!.name), rate(paths[1]!.name));
    const baselineName = rate(paths[0]!.name) >= rate(paths[1]!.name) ? paths[0]!.name : paths[1]!.name;
    const widths = [40, 11, 14, 32];
    process.stdout.write(row(['path (best of 5 rounds)', 'samples/s', 'CPU µs/sample', `vs best in-process (${baselineName})`], widths) + '\n');
    for (const path of paths) {
      const cpuMicros = (1e6 * best.get(path.name)!.cpu) / samples.length;
      process.stdout.write(row([path.name, rate(path.name).toFixed(0), cpuMicros.toFixed(1), `${(rate(path.name) / baseline).toFixed(2)}x`], widths) + '\n');
    }
    process.stdout.write('(CPU: all threads of this process — client, server, pool — per sample in that round)\n');
    const one = rate('gRPC Score, --workers 1');
    const two = rate('gRPC Score, --workers 2');
    process.stdout.write(`gRPC Score --workers 2 vs --workers 1: ${(two / one).toFixed(2)}x (goal ≥ 1.6x on 2 cores)\n`);
    process.stdout.write(`RSS of this process (client and servers together): idle ${idleRss.toFixed(0)} MiB, peak ${peakRss.toFixed(0)} MiB, after ${rssMiB().toFixed(0)} MiB\n`);
  } finally {
    for (const client of clients) client.close();
    for (const server of servers) await server.shutdown();
    await inline.close();
    await pool.close();
  }
}

if (require.main === module) void run();
