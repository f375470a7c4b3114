import { isJsonObject, type Json, type JsonObject } from '../../core/json';
import type { Status } from '../../core/sample';
import { STATUS_EXPECTED, statusOf } from '../../core/status';
import { formatOf } from './format';
import { openRows } from './read';
import type { RowSource } from './rows';

/**
 * The result row: what `verdict score` writes one line of per sample, read back by every command that
 * reads results (diff, --retry-aborted, --compare, curate learnability, report). This module owns
 * its reading: the fields those commands use are checked once here, and a row that lacks them is a
 * typed error naming the file, the line and the field, whichever command read it.
 */
export interface ResultRow {
  /** The row as written, every field (pass-through columns included): what is kept or shown as is. */
  json: JsonObject;
  /** Where it was read: the results file's line (a Parquet file's row), from 1. */
  at: number;
  id: string;
  /** The input line the result is for; null in results that do not say (the API's, the playground's). */
  line: number | null;
  /** Which of the input row's rollouts; null for a row of one response. */
  rollout: number | null;
  status: Status;
  /** Present exactly on OK results. */
  reward: number | null;
  reason: string;
  verifier: string;
  receipt: { verifier: string; config: string; input: string } | null;
}

export class ResultRowError extends Error {
  constructor(
    readonly file: string,
    readonly at: number,
    /** The field at fault; null when the line is not a JSON object at all. */
    readonly field: string | null,
    detail: string,
  ) {
    super(`${file}:${at}: ${field === null ? '' : `${field}: `}${detail}`);
    this.name = 'ResultRowError';
  }
}

export interface ResultRowRules {
  /** The row must say which input line it is for (`line`): readers that match results to input rows. */
  needLine?: boolean;
  /** Said after a status error: what the command wanted instead of a file of something else. */
  statusHint?: string;
}

function received(value: Json | undefined): string {
  return value === undefined ? 'nothing' : JSON.stringify(value).slice(0, 80);
}

/** One parsed line of a results file → its result row, or a ResultRowError. */
export function resultRow(value: JsonObject, file: string, at: number, rules: ResultRowRules = {}): ResultRow {
  const fail = (field: string, detail: string) => new ResultRowError(file, at, field, detail);
  const status = statusOf(value.status);
  if (status === null) throw fail('status', `${STATUS_EXPECTED}, received ${received(value.status)} — is this a results file of verdict score?${rules.statusHint ? ` ${rules.statusHint}` : ''}`);
  const reward = value.reward;
  if (reward !== undefined && reward !== null && typeof reward !== 'number') throw fail('reward', `expected a number, received ${received(reward)}`);
  if (status === 'OK' && typeof reward !== 'number') throw fail('reward', 'an OK result must carry a number');
  const line = value.line;
  if (line !== undefined && !(typeof line === 'number' && Number.isInteger(line) && line >= 1)) throw fail('line', `expected an input line number, received ${received(line)}`);
  if (rules.needLine && line === undefined) throw fail('line', 'required (results written by verdict score carry the input line; an older verdict, or not its output?)');
  const rollout = value.rollout;
  if (rollout !== undefined && !(typeof rollout === 'number' && Number.isInteger(rollout) && rollout >= 0)) throw fail('rollout', `expected a rollout number, received ${received(rollout)}`);
  for (const field of ['reason', 'verifier', 'id'] as const) {
    if (value[field] !== undefined && typeof value[field] !== 'string') throw fail(field, `expected a string, received ${received(value[field])}`);
  }
  const receipt = value.receipt;
  return {
    json: value,
    at,
    id: (value.id as string | undefined) ?? '',
    line: line ?? null,
    rollout: rollout ?? null,
    status,
    reward: typeof reward === 'number' ? reward : null,
    reason: (value.reason as string | undefined) ?? '',
    verifier: (value.verifier as string | undefined) ?? '',
    receipt: isJsonObject(receipt)
      ? { verifier: String(receipt.verifier ?? ''), config: String(receipt.config ?? ''), input: String(receipt.input ?? '') }
      : null,
  };
}

export interface ResultFile {
  rows: AsyncIterable<ResultRow>;
  /** The underlying rows, for progress by bytes. */
  source: RowSource;
}

/**
 * Streams a results file (JSONL, .gz, .zst or Parquet, by its extension or `format`), one row at a
 * time in file order; `what` names the file in a bad format's error (`OLD`, `--retry-aborted`).
 */
export async function readResults(file: string, options: ResultRowRules & { what: string; format?: string }): Promise<ResultFile> {
  const format = formatOf(file, options.format, options.what);
  if (!format.ok) throw new Error(format.error);
  const source = await openRows(file, format.format);
  async function* rows(): AsyncGenerator<ResultRow> {
    for await (const row of source.rows) {
      if ('error' in row) throw new ResultRowError(file, row.line, null, row.error);
      yield resultRow(row.value, file, row.line, options);
    }
  }
  return { rows: rows(), source };
}
