import { join } from 'node:path';
import { Piscina } from 'piscina';
import { buildScreen, type Screen, type ScreenMatch, type ScreenSpec } from '../../curate/screen';

/**
 * Scans chunks of sample texts on `workers` threads (0: on this thread). Chunks are independent,
 * so the scan uses every core; results come back per chunk, and the caller keeps input order.
 */
export interface Scanner {
  scan(texts: string[]): Promise<Array<ScreenMatch | null>>;
  /** What the index holds (built on this thread too, once, for the report). */
  screen: Screen;
  close(): Promise<void>;
}

export function startScanner(spec: ScreenSpec, workers: number): Scanner {
  const screen = buildScreen(spec);
  if (workers === 0) {
    return { screen, scan: async (texts) => texts.map((t) => screen.scan(t)), close: async () => {} };
  }
  const pool = new Piscina({ filename: join(__dirname, 'scan-worker.js'), workerData: spec, minThreads: workers, maxThreads: workers, idleTimeout: Number.POSITIVE_INFINITY });
  return {
    screen,
    scan: (texts) => pool.run(texts) as Promise<Array<ScreenMatch | null>>,
    close: () => pool.destroy(),
  };
}
