import { join } from 'node:path';
import { Piscina } from 'piscina';
import { buildScreen, type Screen } from '../../curate/screen';
import { runScanTask, type ScanInit, type ScanOutcome, type ScanTask } from './scan-task';

/**
 * Scans chunks on `workers` threads (0: on this thread). Chunks are independent, so the scan uses
 * every core; results come back per chunk, and the caller keeps input order.
 */
export interface Scanner {
  scan(task: ScanTask): Promise<ScanOutcome[]>;
  /** What the index holds (built on this thread too, once, for the report). */
  screen: Screen;
  close(): Promise<void>;
}

export function startScanner(init: ScanInit, workers: number): Scanner {
  const screen = buildScreen(init.spec);
  if (workers === 0) return { screen, scan: async (task) => runScanTask(screen, task, init.textFields), close: async () => {} };
  const pool = new Piscina({ filename: join(__dirname, 'scan-worker.js'), workerData: init, minThreads: workers, maxThreads: workers, idleTimeout: Number.POSITIVE_INFINITY });
  return { screen, scan: (task) => pool.run(task) as Promise<ScanOutcome[]>, close: () => pool.destroy() };
}
