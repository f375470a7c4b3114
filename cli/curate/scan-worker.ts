// A worker thread of `verdict curate decontam`: builds the screen once from the spec it is started
// with (every thread holds its own index; building it costs far less than the scan), then scans the
// chunks of sample texts it is given.
import { workerData } from 'node:worker_threads';
import { buildScreen, type ScreenMatch, type ScreenSpec } from '../../curate/screen';

const screen = buildScreen(workerData as ScreenSpec);

export default function scanChunk(texts: string[]): Array<ScreenMatch | null> {
  return texts.map((text) => screen.scan(text));
}
