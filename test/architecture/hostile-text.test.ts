import { Worker } from 'node:worker_threads';
import { HOSTILE_CASES } from './hostile-text-cases';

/*
 * Texts of a million characters shaped against the patterns that read responses and judge replies
 * (hostile-text-cases.ts). Each runs on its own worker thread: a linear reading takes milliseconds,
 * a pattern that backtracks over the run takes minutes to hours, and a worker can be stopped where a
 * synchronous call cannot. The minute allowed bounds the algorithm, not the machine's speed.
 */

const STILL_RUNNING = 'still running after a minute';

function runCase(name: string): Promise<unknown> {
  const worker = new Worker(require.resolve('./hostile-text-cases'), { workerData: { hostileCase: name } });
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    }),
    new Promise((resolve) => (timer = setTimeout(() => resolve(STILL_RUNNING), 60_000))),
  ]).finally(() => {
    clearTimeout(timer);
    void worker.terminate();
  });
}

describe('long runs in untrusted text are read in linear time', () => {
  it.each(Object.keys(HOSTILE_CASES))('%s', async (name) => {
    expect(await runCase(name)).toEqual(HOSTILE_CASES[name]!.answer);
  }, 90_000);
});
