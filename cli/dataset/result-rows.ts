// How an input row becomes its result rows: the one place that builds them, used by the calling
// thread and, for most rows of a JSONL run, by the pool threads (pool-rows.ts). Both write the same
// bytes because both run this code on the same data; nothing here does I/O.
import type { ShapedResult } from '../../core/groups';
import type { JsonObject } from '../../core/json';
import type { Sample, Status } from '../../core/sample';
import { STATUS_NAMES } from '../../core/status';
import { fieldsToJson } from '../../services/wire/fields';
import { canonicalJson, shortHash, type Receipts } from '../receipt';
import type { Mapping } from './mapping';
import { rowToSamples } from './row-samples';
import { rowFields } from './row-fields';
import type { ResultRow } from './results';
import type { InputRow } from './rows';

/** How rows become samples and result rows in a run: plain data, so a pool thread can be given it. */
export interface RowRules {
  mapping: Mapping;
  /** The input columns the mapping reads (not passed through). */
  consumed: ReadonlySet<string>;
  /** Unmapped input columns are copied to each of the row's results. */
  keepColumns: boolean;
  /** Each result row also carries the response it was given for. */
  keepResponse: boolean;
}

/** One input row on its way through a batch. */
export type Item =
  | { line: number; row: InputRow; kind: 'samples'; samples: Array<{ sample: Sample; rollout: number | null }> }
  | { line: number; row: InputRow; kind: 'invalid'; error: string; id: string; verifier: string }
  | { line: number; kind: 'kept'; rows: ResultRow[] };

/** What a result row is made of beside its result. */
export interface RowContext {
  rules: RowRules;
  receipts: Receipts;
  /** An input column not passed through because a result field has its name: told once per name. */
  collided(column: string): void;
}

/** Result fields; an input column of the same name cannot pass through. Built on first use: a pool thread is given its tables with its first job. */
let resultFields: ReadonlySet<string> | null = null;

/** An input row → its item: its previous results kept (--retry-aborted), its samples, or an INVALID row. */
export function itemOf(row: InputRow, rules: RowRules, countTokens: ((text: string) => number) | null, kept: ResultRow[] | null = null): Item {
  if (kept) return { line: row.line, kind: 'kept', rows: kept };
  if ('error' in row) return { line: row.line, row, kind: 'invalid', error: row.error, id: '', verifier: '' };
  const mapped = rowToSamples(row.value, rules.mapping, { line: row.line, countTokens });
  return mapped.ok
    ? { line: row.line, row, kind: 'samples', samples: mapped.samples }
    : { line: row.line, row, kind: 'invalid', error: mapped.error, id: mapped.id, verifier: mapped.verifier };
}

/** The input row's columns a result row carries (not consumed by the mapping, not a result field's name). */
export function passThrough(row: InputRow, context: RowContext): JsonObject | null {
  const { rules } = context;
  if (!rules.keepColumns || !('value' in row)) return null;
  let out: JsonObject | null = null;
  const named = (resultFields ??= new Set(rowFields().resultColumns));
  for (const key in row.value) {
    if (rules.consumed.has(key)) continue;
    if (named.has(key) || (rules.keepResponse && key === 'response')) {
      context.collided(key);
      continue;
    }
    (out ??= {})[key] = row.value[key]!;
  }
  return out;
}

function assign(target: JsonObject, extra: JsonObject | null): JsonObject {
  if (extra !== null) for (const key in extra) target[key] = extra[key]!;
  return target;
}

/** A scored sample's result row; fields in the order of the file format (docs/cli.md). */
export function scoredRow(result: ShapedResult, sample: Sample, rollout: number | null, line: number, pass: JsonObject | null, context: RowContext): JsonObject {
  const json: JsonObject = { id: result.id, line };
  if (rollout !== null) json.rollout = rollout;
  // The prompt a rollout belongs to travels with its result: pass rates per prompt (verdict
  // curate learnability) and group reports read it from the results alone.
  if (sample.groupId !== '') json.groupId = sample.groupId;
  json.status = STATUS_NAMES[result.status];
  if (result.reward !== undefined) json.reward = result.reward;
  json.reason = result.status === 'INVALID' ? `line ${line}: ${result.reason}` : result.reason;
  json.verifier = result.verifier;
  json.verifierVersion = result.verifierVersion;
  json.details = result.details;
  if (result.advantage !== undefined) json.advantage = result.advantage;
  fieldsToJson(json, rowFields().resultBeyond, result);
  json.receipt = context.receipts.of(sample, result.verifierVersion);
  if (context.rules.keepResponse) json.response = sample.response;
  return assign(json, pass);
}

/** A row that is not a sample: one INVALID result naming the line. */
export function invalidRow(item: Extract<Item, { kind: 'invalid' }>, pass: JsonObject | null): JsonObject {
  const json: JsonObject = {
    id: item.id,
    line: item.line,
    status: STATUS_NAMES.INVALID,
    reason: `line ${item.line}: ${item.error}`,
    verifier: item.verifier,
    verifierVersion: '',
    details: {},
    receipt: { verifier: '', config: '', input: 'value' in item.row ? shortHash(canonicalJson(item.row.value)) : '' },
  };
  return assign(json, pass);
}

/** What the run summary counts of one result row. */
export interface Tally {
  verifier: string;
  status: Status;
  /** Without the "line N: " an INVALID result row's reason starts with. */
  reason: string;
  reward: number | undefined;
  /** Seconds the verifier took; null for rows that were not scored in this run. */
  seconds: number | null;
}
