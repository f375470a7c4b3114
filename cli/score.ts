import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { SingleBar } from 'cli-progress';
import type { GroupOptions } from '../core/groups';
import type { ScoreResult } from '../core/sample';
import type { VerdictConfig } from '../services/config';
import { Scorer } from '../services/engine/scorer';
import { openRuntime } from '../services/runtime';
import { groupToJson, resultToJson } from '../services/wire/json';
import { parseLine, type LineItem } from './jsonl';
import { Summary } from './summary';

export interface ScoreFileOptions {
  input: string;
  output: string;
  workers: number;
  config: VerdictConfig;
  /** Lines scored together; bounds memory on large files. */
  batchSize: number;
  progress: boolean;
  /** Group shaping, as a request's group_options; null for none. */
  groupOptions?: GroupOptions | null;
  /** Where to write one GroupSummary JSON line per group (also enables group-aware batching). */
  groupsOutput?: string;
}

function countLines(path: string): number | null {
  if (path === '-') return null;
  const buffer = readFileSync(path);
  let lines = 0;
  for (let i = buffer.indexOf(10); i !== -1; i = buffer.indexOf(10, i + 1)) lines++;
  return buffer.length > 0 && buffer[buffer.length - 1] !== 10 ? lines + 1 : lines;
}

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

/** Scores a rollout file in-process: one result line per input line, in order, then a summary. */
export async function scoreFile(options: ScoreFileOptions): Promise<Summary> {
  const groupOptions = options.groupOptions ?? null;
  // Shaping and summaries need a whole group in one batch: batches then end only at group boundaries,
  // so one may run past --batch-size by the rest of its last group (the engine's own limit still holds).
  const grouped = groupOptions !== null || options.groupsOutput !== undefined;
  const limits = grouped ? {} : { maxBatchSamples: options.batchSize };
  const runtime = await openRuntime({ workers: options.workers, config: options.config, limits });
  const scorer = new Scorer(runtime.engine);
  const input = options.input === '-' ? process.stdin : createReadStream(options.input);
  const out: Writable = options.output === '-' ? process.stdout : createWriteStream(options.output);
  const groupsOut: Writable | null = options.groupsOutput ? createWriteStream(options.groupsOutput) : null;
  const flushedGroups = new Set<string>();
  const summary = new Summary();
  const total = options.progress ? countLines(options.input) : null;
  const bar = options.progress
    ? new SingleBar({
        format: 'scoring [{bar}] {value}/{total} samples | {rate}/s | eta {eta_formatted}',
        stream: process.stderr,
        hideCursor: true,
      })
    : null;
  bar?.start(total ?? 0, 0, { rate: 0 });
  const started = Date.now();

  let batch: LineItem[] = [];
  const flush = async () => {
    const samples = batch.flatMap((item) => ('sample' in item ? [item.sample] : []));
    const shaped = await scorer.score({ samples, groupOptions });
    const scored = shaped.results;
    let next = 0;
    const lines: string[] = [];
    for (const item of batch) {
      const result: ScoreResult = 'sample' in item ? scored[next++]! : item.result;
      summary.add(result);
      const { index: _index, ...rest } = resultToJson(result);
      lines.push(JSON.stringify(rest));
    }
    await write(out, lines.length ? lines.join('\n') + '\n' : '');
    if (grouped) {
      for (const group of shaped.groups) {
        summary.addGroup(group);
        flushedGroups.add(group.groupId);
      }
      if (groupsOut && shaped.groups.length > 0) await write(groupsOut, shaped.groups.map((g) => JSON.stringify(groupToJson(g))).join('\n') + '\n');
    }
    batch = [];
    if (bar) {
      if (total === null) bar.setTotal(summary.total);
      bar.update(summary.total, { rate: Math.round(summary.total / Math.max(0.001, (Date.now() - started) / 1000)) });
    }
  };

  try {
    let lineNumber = 0;
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      lineNumber++;
      if (line.trim() === '') continue;
      const item = parseLine(line, lineNumber);
      const groupId = 'sample' in item ? item.sample.groupId : '';
      if (grouped && groupId !== '') {
        if (flushedGroups.has(groupId)) {
          throw new Error(`line ${lineNumber}: group "${groupId}" is not contiguous: its earlier lines were already scored (sort the file by group_id)`);
        }
        const last = batch.at(-1);
        const lastGroup = last && 'sample' in last ? last.sample.groupId : '';
        if (batch.length >= options.batchSize && groupId !== lastGroup) await flush();
      } else if (batch.length >= options.batchSize) {
        await flush();
      }
      batch.push(item);
    }
    await flush();
  } finally {
    bar?.stop();
    if (out !== process.stdout) await new Promise<void>((resolve) => (out as NodeJS.WritableStream).end(resolve));
    if (groupsOut) await new Promise<void>((resolve) => (groupsOut as NodeJS.WritableStream).end(resolve));
    await runtime.close();
  }
  return summary;
}
