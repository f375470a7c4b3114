import { GroupStream, resolveGroupOptions, shapeGroups, summarizeGroups } from '../core/groups';
import { Engine } from '../services/engine/engine';
import { InlineExecutor } from '../services/pool/executor';
import { createRegistry } from '../verifiers';
import { qaBatch } from './qa';
import { bestOf, heading, row } from './timing';

/** Group shaping's cost next to plain summaries, and next to scoring the same batch. */
export async function run(): Promise<void> {
  heading('groups: shaping 4,096 results in 256 groups of 16');
  const batch = qaBatch();
  const registry = createRegistry();
  const engine = new Engine({ registry, executor: new InlineExecutor(registry) });
  const results = await engine.score(batch);
  const parsed = resolveGroupOptions({ lengthPenalty: true, maxLength: 4096, advantage: 'grpo' });
  if (!parsed.ok) throw new Error(parsed.error);
  const options = parsed.options;
  const repeat = 50;
  const widths = [44, 14, 10];
  process.stdout.write(row(['path', 'samples/s', 'vs summaries only'], widths) + '\n');

  const rate = async (fn: () => void) => {
    const t = await bestOf(3, async () => {
      for (let i = 0; i < repeat; i++) fn();
    });
    return (batch.length * repeat) / t.seconds;
  };
  const base = await rate(() => summarizeGroups(batch, results));
  process.stdout.write(row(['summaries only (baseline)', base.toFixed(0), '1.00'], widths) + '\n');
  const shaped = await rate(() => shapeGroups(batch, results, options));
  process.stdout.write(row(['length penalty + grpo advantages + keep', shaped.toFixed(0), (shaped / base).toFixed(2)], widths) + '\n');
  const streamed = await rate(() => {
    const stream = new GroupStream(batch, options);
    for (const result of results) stream.push(result);
  });
  process.stdout.write(row(['ScoreStream ordering (GroupStream), shaped', streamed.toFixed(0), (streamed / base).toFixed(2)], widths) + '\n');

  const scoring = await bestOf(3, () => engine.score(batch));
  const scoreRate = batch.length / scoring.seconds;
  process.stdout.write(row(['qa scoring, main thread (for scale)', scoreRate.toFixed(0), (scoreRate / base).toFixed(2)], widths) + '\n');
  await engine.close();
}
