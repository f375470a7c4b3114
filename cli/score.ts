import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { shapeGroups, type GroupOptions, type GroupSummary } from '../core/groups';
import type { JsonObject } from '../core/json';
import type { Sample, Status } from '../core/sample';
import type { VerdictConfig } from '../services/config';
import type { ClientAuth } from '../services/auth';
import { groupToJson, resultToJson } from '../services/wire/json';
import { createRegistry } from '../verifiers';
import { checkpointPath, readCheckpoint, removeCheckpoint, writeCheckpoint, type Checkpoint, type ResumeKey } from './checkpoint';
import { formatOf, outputFormatOf, type DatasetFormat } from './dataset/format';
import { consumedColumns, mappingFrom, rowToSamples, type Mapping } from './dataset/mapping';
import { openRows, type InputRow } from './dataset/read';
import { openSink, type OutputRow, type ResultSink } from './dataset/write';
import { PreviousResults } from './previous';
import { Progress } from './progress';
import { canonicalJson, Receipts, shortHash } from './receipt';
import { localScorer, remoteScorer, replicaAddresses, type BatchScorer, type TimedResult } from './scorer';
import { Summary } from './summary';

export interface ScoreFileOptions {
  input: string;
  output: string;
  /** `--format` / `--output-format`; otherwise each path's extension decides. */
  inputFormat?: string;
  outputFormat?: string;
  workers: number;
  config: VerdictConfig;
  /** Samples scored together; bounds memory on large files. */
  batchSize: number;
  progress: boolean;
  /** Group shaping, as a request's group_options; null for none. */
  groupOptions?: GroupOptions | null;
  /** Where to write one GroupSummary JSON line per group (also enables group-aware batching). */
  groupsOutput?: string;
  /** How rows become samples; sample-shaped rows when absent. */
  mapping?: Mapping;
  /** Unmapped input columns are copied to each of the row's results (default true). */
  keepColumns?: boolean;
  /** Each result row also carries the response it was given for (`response`), for reports to show. */
  keepResponse?: boolean;
  /** Continue an interrupted run from its checkpoint. */
  resume?: boolean;
  /** A previous output: its rows that are not ABORTED are kept, the ABORTED ones scored again. */
  retryAborted?: string;
  /** `host:port,…` or `dns:///name:port`: score on running replicas over gRPC. */
  servers?: string;
  /** How to reach `servers` when they want a token and/or TLS. */
  serverAuth?: ClientAuth;
  /** Counts response tokens where the rows have none (--tokenizer). */
  countTokens?: ((text: string) => number) | null;
  /** Installs SIGINT handling: stop reading, finish the batches in flight, keep the checkpoint. */
  handleSignals?: boolean;
}

export interface ScoreRun {
  summary: Summary;
  /** Stopped by SIGINT before the end of the input. */
  interrupted: boolean;
  /** The last input row whose results are written. */
  lastLine: number;
}

/** Result fields; an input column of the same name cannot pass through (reported once). */
const RESULT_FIELDS = new Set(['id', 'line', 'rollout', 'groupId', 'status', 'reward', 'reason', 'verifier', 'verifierVersion', 'details', 'advantage', 'receipt']);

const STATUS_OF: Record<string, Status> = { STATUS_OK: 'OK', STATUS_INVALID: 'INVALID', STATUS_ABORTED: 'ABORTED' };

/** One input row on its way through a batch. */
type Item =
  | { line: number; row: InputRow; kind: 'samples'; samples: Array<{ sample: Sample; rollout: number | null }> }
  | { line: number; row: InputRow; kind: 'invalid'; error: string; id: string; verifier: string }
  | { line: number; kind: 'kept'; rows: JsonObject[] };

/** What a finished batch hands to the writer: output rows, group summaries, summary entries. */
interface BatchOutput {
  rows: OutputRow[];
  groups: GroupSummary[];
  tally: Array<{ verifier: string; status: Status; reason: string; reward?: number; seconds: number | null }>;
  lastLine: number;
}

/**
 * What a resumed run must share with the interrupted one, part by part: each can change a result
 * (the input, how rows become samples, the verifiers' versions, their config, group shaping, a
 * previous run's rows). Options that cannot — --batch-size, --workers, --server's replicas, progress —
 * are not part of it, so a resume may change them.
 */
function resumeKey(options: ScoreFileOptions, inputFormat: DatasetFormat, outputFormat: DatasetFormat): ResumeKey {
  const input = options.input === '-' ? null : statSync(options.input);
  const part = (value: unknown) => shortHash(canonicalJson(value));
  return {
    input: part({ path: options.input === '-' ? '-' : path.resolve(options.input), size: input?.size ?? null, mtime: input?.mtimeMs ?? null, format: inputFormat }),
    output: part({ format: outputFormat }),
    mapping: part({
      mapping: options.mapping ? { ...options.mapping, routes: [...options.mapping.routes] } : null,
      keepColumns: options.keepColumns ?? true,
      keepResponse: options.keepResponse === true,
      tokens: options.countTokens ? 'tokenizer' : null,
    }),
    // Remote replicas' verifiers and config are theirs: the CLI cannot see them.
    verifiers: part(options.servers === undefined ? createRegistry().list().map((v) => `${v.name}@${v.version}`) : 'remote'),
    config: part(options.servers === undefined ? options.config : 'remote'),
    groups: part({ groupOptions: options.groupOptions ?? null, grouped: options.groupsOutput !== undefined }),
    retryAborted: part(options.retryAborted ?? null),
  };
}

/** How each part of the resume key is named when a resume is refused. */
const RESUME_PARTS: Record<keyof ResumeKey, string> = {
  input: 'input file (its path, size or modification time, or --format)',
  output: 'output format',
  mapping: 'row mapping (--preset, the --*-field flags, --keep-columns, --tokenizer)',
  verifiers: 'verifier versions (another verdict version)',
  config: 'config (--config)',
  groups: 'group shaping (--group-options, --groups)',
  retryAborted: '--retry-aborted file',
};

/**
 * Scores a dataset: one result row per sample (a row with n rollouts gives n), in input order, each
 * with the input `line` it came from; a row that is not a sample gets one INVALID result naming the
 * line. Memory holds a few batches, whatever the file's size.
 */
export async function scoreFile(options: ScoreFileOptions): Promise<ScoreRun> {
  const inputFormat = formatOf(options.input, options.inputFormat, 'input');
  if (!inputFormat.ok) throw new Error(inputFormat.error);
  const outputFormat = outputFormatOf(options.output, options.outputFormat, '-o', '--output-format');
  if (!outputFormat.ok) throw new Error(outputFormat.error);
  if (options.input !== '-' && !existsSync(options.input)) throw new Error(`${options.input}: no such file`);

  const mapping = options.mapping ?? (mappingFrom({}) as { ok: true; mapping: Mapping }).mapping;
  const keepColumns = options.keepColumns ?? true;
  const consumed = consumedColumns(mapping);
  const groupOptions = options.groupOptions ?? null;
  // Shaping and summaries need a whole group in one batch: batches then end only at group boundaries,
  // so one may run past --batch-size by the rest of its last group.
  const grouped = groupOptions !== null || options.groupsOutput !== undefined;
  const toFile = options.output !== '-';
  const durable = toFile && outputFormat.format !== 'parquet';
  const key = resumeKey(options, inputFormat.format, outputFormat.format);

  let checkpoint: Checkpoint | null = null;
  if (options.resume) {
    if (!durable) throw new Error('--resume needs a JSONL output file (.jsonl, .jsonl.gz or .jsonl.zst): Parquet and stdout cannot be continued');
    checkpoint = readCheckpoint(options.output);
    // An empty output without a checkpoint was killed before its first checkpoint: start over.
    if (checkpoint === null && existsSync(options.output) && statSync(options.output).size > 0) {
      throw new Error(`--resume: ${options.output} has no checkpoint (${path.basename(checkpointPath(options.output))}): that run finished, or was not started by this version`);
    }
    const changed = checkpoint === null ? [] : (Object.keys(RESUME_PARTS) as Array<keyof ResumeKey>).filter((k) => checkpoint!.key[k] !== key[k]);
    if (changed.length > 0) {
      throw new Error(
        `--resume: ${options.output} was written with another ${changed.map((k) => RESUME_PARTS[k]).join('; another ')}: give the same, or rerun without --resume to start over`,
      );
    }
  }

  const source = await openRows(options.input, inputFormat.format, { after: checkpoint?.line ?? 0 });
  const summary = checkpoint ? Summary.fromState(checkpoint.summary) : new Summary();
  const save = (line: number, outputBytes: number, groupsBytes: number | null) =>
    writeCheckpoint(options.output, { version: 2, key, line, outputBytes, groupsBytes, summary: summary.state() });
  // A run killed before its first batch is written can be resumed too.
  if (durable && checkpoint === null) save(0, 0, options.groupsOutput ? 0 : null);
  const sink: ResultSink = openSink(options.output, outputFormat.format, {
    durable,
    ...(checkpoint ? { keepBytes: checkpoint.outputBytes } : {}),
    parquetColumns: source.parquetColumns,
  });
  const groupsSink: ResultSink | null = options.groupsOutput
    ? openSink(options.groupsOutput, 'jsonl', { durable, ...(checkpoint?.groupsBytes != null ? { keepBytes: checkpoint.groupsBytes } : {}) })
    : null;
  const previous = options.retryAborted ? await PreviousResults.open(options.retryAborted) : null;
  const scorer: BatchScorer = options.servers
    ? remoteScorer(await replicaAddresses(options.servers), options.serverAuth ?? {})
    : // The CLI bounds its own work (a few batches in flight); a batch may pass --batch-size by a row's
      // rollouts or the rest of a group, which the service's per-request limit must not refuse.
      await localScorer({ workers: options.workers, config: options.config, limits: { maxBatchSamples: Number.MAX_SAFE_INTEGER, maxPendingSamples: Number.MAX_SAFE_INTEGER } });
  const receipts = new Receipts(options.servers ? null : options.config, groupOptions);
  const progress = options.progress ? new Progress(source.totalBytes, source.bytesRead) : null;
  const collisions = new Set<string>();

  let stopping = false;
  const onSigint = () => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write('\nverdict: SIGINT: finishing the batches in flight (again to quit now)\n');
  };
  if (options.handleSignals) process.on('SIGINT', onSigint);

  const passThrough = (row: InputRow): JsonObject => {
    const out: JsonObject = {};
    if (!keepColumns || !('value' in row)) return out;
    for (const [key, value] of Object.entries(row.value)) {
      if (consumed.has(key)) continue;
      if (RESULT_FIELDS.has(key) || (options.keepResponse === true && key === 'response')) {
        if (!collisions.has(key)) {
          collisions.add(key);
          process.stderr.write(`verdict: input column "${key}" is not passed through: a result field has that name\n`);
        }
        continue;
      }
      out[key] = value;
    }
    return out;
  };
  const nativeOf = (row: InputRow): Record<string, unknown> | undefined => ('native' in row ? row.native : undefined);

  const scoreBatch = async (items: readonly Item[]): Promise<BatchOutput> => {
    const samples: Sample[] = [];
    for (const item of items) if (item.kind === 'samples') for (const s of item.samples) samples.push(s.sample);
    const timed: TimedResult[] = samples.length > 0 ? await scorer.score(samples) : [];
    const shaped = shapeGroups(samples, timed.map((t) => t.result), groupOptions);
    const out: BatchOutput = { rows: [], groups: grouped ? shaped.groups : [], tally: [], lastLine: items.at(-1)?.line ?? 0 };
    let next = 0;
    for (const item of items) {
      if (item.kind === 'kept') {
        for (const json of item.rows) {
          out.rows.push({ json });
          const status = STATUS_OF[String(json.status)] ?? 'ABORTED';
          const reason = String(json.reason ?? '').replace(/^line \d+: /, '');
          out.tally.push({ verifier: String(json.verifier ?? ''), status, reason, ...(typeof json.reward === 'number' ? { reward: json.reward } : {}), seconds: null });
        }
        continue;
      }
      const pass = passThrough(item.row);
      const native = nativeOf(item.row);
      if (item.kind === 'invalid') {
        const json: JsonObject = {
          id: item.id,
          line: item.line,
          status: 'STATUS_INVALID',
          reason: `line ${item.line}: ${item.error}`,
          verifier: item.verifier,
          verifierVersion: '',
          details: {},
          receipt: { verifier: '', config: '', input: 'value' in item.row ? shortHash(canonicalJson(item.row.value)) : '' },
          ...pass,
        };
        out.rows.push({ json, ...(native ? { native } : {}) });
        out.tally.push({ verifier: item.verifier, status: 'INVALID', reason: item.error, seconds: null });
        continue;
      }
      for (const { sample, rollout } of item.samples) {
        const k = next++;
        const result = shaped.results[k]!;
        const { id, index: _index, status, reason, ...rest } = resultToJson(result);
        const json: JsonObject = {
          id: id!,
          line: item.line,
          ...(rollout === null ? {} : { rollout }),
          // The prompt a rollout belongs to travels with its result: pass rates per prompt (verdict
          // curate learnability) and group reports read it from the results alone.
          ...(sample.groupId !== '' ? { groupId: sample.groupId } : {}),
          status: status!,
          ...(result.reward === undefined ? {} : { reward: result.reward }),
          reason: result.status === 'INVALID' ? `line ${item.line}: ${String(reason)}` : reason!,
          ...withoutReward(rest),
          receipt: receipts.of(sample, result.verifierVersion),
          ...(options.keepResponse === true ? { response: sample.response } : {}),
          ...pass,
        };
        out.rows.push({ json, ...(native ? { native } : {}) });
        out.tally.push({ verifier: result.verifier, status: result.status, reason: result.reason, ...(result.reward === undefined ? {} : { reward: result.reward }), seconds: timed[k]!.seconds });
      }
    }
    return out;
  };

  // Batches are scored `parallelism` at a time and written strictly in input order.
  const inFlight: Array<Promise<BatchOutput>> = [];
  let lastLine = checkpoint?.line ?? 0;
  const writeNext = async () => {
    const done = await inFlight.shift()!;
    await sink.write(done.rows);
    if (groupsSink && done.groups.length > 0) await groupsSink.write(done.groups.map((g) => ({ json: groupToJson(g) })));
    for (const t of done.tally) summary.add(t.verifier, t.status, t.reason, t.reward, t.seconds);
    for (const g of done.groups) summary.addGroup(g);
    lastLine = done.lastLine;
    if (durable) save(lastLine, sink.bytes(), groupsSink ? groupsSink.bytes() : null);
    progress?.update(summary.total, { ok: summary.countOf('OK'), invalid: summary.countOf('INVALID'), aborted: summary.countOf('ABORTED') });
  };
  const dispatch = async (items: Item[]) => {
    const running = scoreBatch(items);
    running.catch(() => undefined); // awaited in order by writeNext; this only keeps it from being "unhandled" meanwhile
    inFlight.push(running);
    if (inFlight.length >= scorer.parallelism) await writeNext();
  };

  let batch: Item[] = [];
  let batchSamples = 0;
  let lastGroup = '';
  const flushedGroups = new Set<string>();
  let completed = false;
  let stoppedEarly = false;
  try {
    for await (const row of source.rows) {
      if (stopping) {
        stoppedEarly = true;
        break;
      }
      let item: Item;
      const kept = previous ? await previous.keptRows(row.line) : null;
      if (kept) item = { line: row.line, kind: 'kept', rows: kept };
      else if ('error' in row) item = { line: row.line, row, kind: 'invalid', error: row.error, id: '', verifier: '' };
      else {
        const mapped = rowToSamples(row.value, mapping, { line: row.line, countTokens: options.countTokens ?? null });
        item = mapped.ok
          ? { line: row.line, row, kind: 'samples', samples: mapped.samples }
          : { line: row.line, row, kind: 'invalid', error: mapped.error, id: mapped.id, verifier: mapped.verifier };
      }
      const groupId = item.kind === 'samples' ? (item.samples[0]?.sample.groupId ?? '') : '';
      if (grouped && groupId !== '') {
        if (flushedGroups.has(groupId) && groupId !== lastGroup) {
          throw new Error(`line ${row.line}: group "${groupId}" is not contiguous: its earlier lines were already scored (sort the file by group_id)`);
        }
        if (batchSamples >= options.batchSize && groupId !== lastGroup) {
          await dispatch(batch);
          batch = [];
          batchSamples = 0;
        }
        if (groupId !== lastGroup) flushedGroups.add(groupId);
      } else if (batchSamples >= options.batchSize) {
        await dispatch(batch);
        batch = [];
        batchSamples = 0;
      }
      if (grouped && groupId !== '') lastGroup = groupId;
      batch.push(item);
      batchSamples += item.kind === 'samples' ? item.samples.length : 1;
    }
    // After SIGINT the unfinished batch is left for --resume: its last group may not be complete.
    if (batch.length > 0 && !stoppedEarly) await dispatch(batch);
    while (inFlight.length > 0) await writeNext();
    completed = !stoppedEarly;
  } finally {
    if (options.handleSignals) process.off('SIGINT', onSigint);
    progress?.stop();
    // Settle batches still in flight (after an error) before the scorer closes under them.
    await Promise.allSettled(inFlight);
    // Complete: the files take their names. Stopped (SIGINT, an error): the partial files stay for --resume.
    if (completed) {
      await sink.close();
      await groupsSink?.close();
    } else {
      await sink.abandon();
      await groupsSink?.abandon();
    }
    await previous?.close();
    await scorer.close();
  }
  if (completed && durable) removeCheckpoint(options.output);
  return { summary, interrupted: !completed, lastLine };
}

function withoutReward(rest: JsonObject): JsonObject {
  const { reward: _reward, ...others } = rest;
  return others;
}
