// A worker thread of `verdict curate decontam`: builds the screen once from the spec it is started
// with (every thread holds its own index; building it costs far less than the scan), then scans the
// chunks it is given — sample texts, or raw JSONL lines that it parses itself, so the main thread
// only reads and writes.
import { workerData } from 'node:worker_threads';
import { buildScreen } from '../../curate/screen';
import { runScanTask, type ScanInit, type ScanOutcome, type ScanTask } from './scan-task';

const init = workerData as ScanInit;
const screen = buildScreen(init.spec);

export default function scanChunk(task: ScanTask): ScanOutcome[] {
  return runScanTask(screen, task, init.textFields);
}
