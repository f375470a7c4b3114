// `verdict score`'s job on a pool thread: a block of JSONL lines in, their result rows out as JSONL
// text. The calling thread only cuts the input into blocks and writes text; splitting, parsing,
// mapping, scoring, receipts and JSON are spread over the threads (issue 39: the offline path at the engine's speed). A row with a
// sample whose verifier awaits services (a judge, a sandbox) is left to the calling thread, whose
// engine owns those services: the reply says where it goes in the output.
import type { Registry } from '../../core/registry';
import { invalid, type Outcome, type Sample } from '../../core/sample';
import { scorePure } from '../../core/score';
import { STATUSES } from '../../core/status';
import type { VerdictConfig } from '../../services/config';
import { responseTooLong, toResult } from '../../services/engine/result';
import { Receipts } from '../receipt';
import { encodeBlock } from './compression';
import type { DatasetFormat } from './format';
import { parseJsonLine } from './json-line';
import { splitLines, type LineBlock } from './lines';
import { invalidRow, itemOf, passThrough, scoredRow, type RowContext, type RowRules, type Tally } from './result-rows';
import { useRowFields, type RowFields } from './row-fields';

export interface RowsJob {
  block: LineBlock;
  /** Lines numbered this or less are not read (--resume). */
  after: number;
  rules: RowRules;
  /** The run's config, for receipts (each verifier's receipt hashes the sections it reads). */
  config: VerdictConfig;
  /** The engine's limit: a longer response is INVALID, as the engine answers it. */
  maxResponseChars: number;
  /** The output's format: the rows are encoded in it here (a gzip member, a zstd frame), not on the calling thread. */
  format: Exclude<DatasetFormat, 'parquet'>;
  /** The descriptors' tables, built by the calling thread: this thread then needs no descriptor (row-fields.ts). */
  fields: RowFields;
}

/** A block's summary entries, in columns: a typed array crosses threads as one copy. */
export interface TallyColumns {
  verifier: string[];
  /** Index into core's STATUSES. */
  status: Uint8Array;
  reason: string[];
  /** NaN where there is no reward. */
  reward: Float64Array;
  /** NaN for rows that were not scored (INVALID rows). */
  seconds: Float64Array;
}

export interface RowsReply {
  /**
   * The block's output in input order: runs of finished result rows as JSONL in the job's format
   * (encoded here, not on the calling thread), and, as a number, a row left to the calling thread: its index in `splitLines(block, after)`.
   */
  parts: Array<Uint8Array | number>;
  /** The finished rows' summary entries, in output order. */
  tally: TallyColumns;
  /** Input columns not passed through because a result field has their name. */
  collisions: string[];
}

/** One pure sample's outcome, refused as the engine refuses it (an unknown verifier, a response too long); null when its verifier is async. */
function pureOutcome(registry: Registry, sample: Sample, maxResponseChars: number): { outcome: Outcome; seconds: number } | null {
  const verifier = registry.get(sample.verifier);
  if (!verifier) return { outcome: invalid(registry.unknownVerifierReason(sample.verifier)), seconds: 0 };
  if (sample.response.length > maxResponseChars) return { outcome: responseTooLong(maxResponseChars), seconds: 0 };
  if (verifier.kind !== 'pure') return null;
  const start = process.hrtime.bigint();
  const outcome = scorePure(verifier, sample);
  return { outcome, seconds: Number(process.hrtime.bigint() - start) / 1e9 };
}

/**
 * Result rows as UTF-8, each row written into one growing buffer as it is made: a block's rows
 * joined as one string first made a large string the collector moved about, and a copy to encode.
 */
class RowBytes {
  private buf = Buffer.allocUnsafe(1 << 16);
  private used = 0;
  add(json: string): void {
    const most = json.length * 3 + 1;
    if (this.used + most > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.used + most));
      this.buf.copy(grown, 0, 0, this.used);
      this.buf = grown;
    }
    this.used += this.buf.write(json, this.used, 'utf8');
    this.buf[this.used++] = 0x0a;
  }
  /** The rows so far, in a buffer of their own size (a message copies a whole buffer), encoded in `format`; then empty. */
  async take(format: RowsJob['format']): Promise<Uint8Array | null> {
    if (this.used === 0) return null;
    const bytes = Buffer.from(this.buf.subarray(0, this.used));
    this.used = 0;
    return encodeBlock(format, bytes);
  }
}

export async function scoreRows(registry: Registry, job: RowsJob): Promise<RowsReply> {
  useRowFields(job.fields);
  const collisions = new Set<string>();
  const context: RowContext = { rules: job.rules, receipts: new Receipts(job.config, null, registry), collided: (column) => collisions.add(column) };
  const tallies: Tally[] = [];
  const parts: Array<Uint8Array | number> = [];
  const text = new RowBytes();
  const flush = async () => {
    const bytes = await text.take(job.format);
    if (bytes) parts.push(bytes);
  };
  const lines = splitLines(job.block, job.after);
  for (let i = 0; i < lines.length; i++) {
    const { line, text: lineText } = lines[i]!;
    const row = parseJsonLine(lineText, line);
    const item = itemOf(row, job.rules, null);
    if (item.kind === 'invalid') {
      text.add(JSON.stringify(invalidRow(item, passThrough(row, context))));
      tallies.push({ verifier: item.verifier, status: 'INVALID', reason: item.error, reward: undefined, seconds: null });
      continue;
    }
    if (item.kind !== 'samples') continue; // 'kept' rows come from --retry-aborted, which this job is not given
    const outcomes: Array<{ outcome: Outcome; seconds: number }> = [];
    for (const { sample } of item.samples) {
      const scored = pureOutcome(registry, sample, job.maxResponseChars);
      if (scored === null) break;
      outcomes.push(scored);
    }
    if (outcomes.length < item.samples.length) {
      await flush();
      parts.push(i);
      continue;
    }
    const pass = passThrough(row, context);
    item.samples.forEach(({ sample, rollout }, k) => {
      const { outcome, seconds } = outcomes[k]!;
      const result = toResult(sample, 0, outcome, registry.get(sample.verifier)?.version ?? '');
      text.add(JSON.stringify(scoredRow(result, sample, rollout, line, pass, context)));
      tallies.push({ verifier: result.verifier, status: result.status, reason: result.reason, reward: result.reward, seconds });
    });
  }
  await flush();
  return { parts, tally: columnsOf(tallies), collisions: [...collisions] };
}

function columnsOf(tallies: readonly Tally[]): TallyColumns {
  const n = tallies.length;
  const columns: TallyColumns = { verifier: new Array<string>(n), status: new Uint8Array(n), reason: new Array<string>(n), reward: new Float64Array(n), seconds: new Float64Array(n) };
  tallies.forEach((t, k) => {
    columns.verifier[k] = t.verifier;
    columns.status[k] = STATUSES.indexOf(t.status);
    columns.reason[k] = t.reason;
    columns.reward[k] = t.reward ?? NaN;
    columns.seconds[k] = t.seconds ?? NaN;
  });
  return columns;
}

/** Summary entry `k` of a reply's columns. */
export function tallyAt(columns: TallyColumns, k: number): Tally {
  const reward = columns.reward[k]!;
  const seconds = columns.seconds[k]!;
  return { verifier: columns.verifier[k]!, status: STATUSES[columns.status[k]!]!, reason: columns.reason[k]!, reward: Number.isNaN(reward) ? undefined : reward, seconds: Number.isNaN(seconds) ? null : seconds };
}
