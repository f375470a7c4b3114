// Entry point of each pool thread: the registry is built once per thread, so per-verifier caches
// (parsed golds, compiled checkers) live as long as the thread.
import { workerData } from 'node:worker_threads';
import type { Registry } from '../../core/registry';
import { runTask, scoreChunk, type PoolTask } from './tasks';

const { registryModule } = workerData as { registryModule: string };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const registry = (require(registryModule) as { createRegistry(): Registry }).createRegistry();

export default function handle(task: PoolTask): unknown {
  return task.op === 'score' ? scoreChunk(registry, task.samples) : runTask(registry, task.verifier, task.task, task.payload);
}
