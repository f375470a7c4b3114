// The engine baseline of the dataset benchmark, run as its own process: the same N qa samples as the
// benchmark's input file, already in memory, through the in-process engine on 2 worker threads in
// batches of 4,096 with two in flight (as `verdict score` keeps them) — no file, no JSON, no
// receipts. Prints the scoring seconds (after one warm-up batch, so thread start-up is not counted).
import { Engine } from '../services/engine/engine';
import { PoolExecutor } from '../services/pool/executor';
import { VERDICT_VERIFIERS } from '../services/pool-entry';
import { qaBatch } from './qa';

async function main(): Promise<void> {
  const n = Number(process.argv[2]);
  const pattern = qaBatch(4096);
  const samples = Array.from({ length: n }, (_, i) => ({ ...pattern[i % pattern.length]!, id: `r${i}`, groupId: '', responseTokens: 0 }));
  const engine = new Engine({ registry: VERDICT_VERIFIERS.createRegistry(), executor: new PoolExecutor(VERDICT_VERIFIERS, 2), limits: { maxBatchSamples: Number.MAX_SAFE_INTEGER, maxPendingSamples: Number.MAX_SAFE_INTEGER } });
  await engine.score(pattern);
  const start = process.hrtime.bigint();
  const batches: Array<Promise<unknown>> = [];
  for (let i = 0; i < n; i += 4096) {
    batches.push(engine.score(samples.slice(i, i + 4096)));
    if (batches.length >= 2) await batches.shift();
  }
  await Promise.all(batches);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await engine.close();
  process.stdout.write(`${seconds}\n`);
}

void main();
