import { isJsonObject, type Json, type JsonObject } from '../core/json';

/**
 * A reviewer's decision on one dense-retrieval candidate pair: data, written by the review page
 * (`verdict report` of a `curate dense` summary) as JSON Lines and versioned beside the dataset.
 * `verdict curate dense --decisions FILE` drops every training sample some pair of which is
 * confirmed contaminated, and writes who decided it beside the dropped row.
 *
 * A pair is named by the benchmark, the item id and the SHA-256 of the sample's embedded text, not
 * by a line number: a decision follows the sample when the file is re-ordered, and never lands on
 * another row when the dataset is edited.
 */

export type Verdict = 'contaminated' | 'benign';

export interface Decision extends JsonObject {
  benchmark: string;
  itemId: string;
  /** SHA-256 (hex) of the training sample's text as embedded. */
  sample: string;
  decision: Verdict;
  reviewer: string;
  /** ISO 8601 time of the decision. */
  decidedAt: string;
  /** Where the sample was when it was reviewed (informative only). */
  line: number | null;
  id: string | null;
  similarity: number | null;
  note: string | null;
}

export const pairKey = (benchmark: string, itemId: string, sample: string): string => JSON.stringify([benchmark, itemId, sample]);

/** One line of a decisions file, or the first thing wrong with it, naming the field. */
export function parseDecision(value: Json): { ok: true; decision: Decision } | { ok: false; error: string } {
  if (!isJsonObject(value)) return { ok: false, error: 'expected a JSON object' };
  const text = (field: string): string | null => (typeof value[field] === 'string' && (value[field] as string) !== '' ? (value[field] as string) : null);
  for (const field of ['benchmark', 'itemId', 'reviewer', 'decidedAt'] as const) if (text(field) === null) return { ok: false, error: `${field}: expected a non-empty string` };
  const sample = text('sample');
  if (sample === null || !/^[0-9a-f]{64}$/.test(sample)) return { ok: false, error: 'sample: expected the SHA-256 (64 hex digits) of the sample text' };
  const decision = value['decision'];
  if (decision !== 'contaminated' && decision !== 'benign') return { ok: false, error: `decision: expected "contaminated" or "benign", got ${JSON.stringify(decision ?? null)}` };
  if (Number.isNaN(Date.parse(text('decidedAt')!))) return { ok: false, error: 'decidedAt: expected an ISO 8601 time' };
  const optional = <T>(field: string, ok: (v: unknown) => v is T): T | null | undefined => (value[field] === undefined || value[field] === null ? null : ok(value[field]) ? (value[field] as T) : undefined);
  const line = optional('line', (v): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1);
  const id = optional('id', (v): v is string => typeof v === 'string');
  const similarity = optional('similarity', (v): v is number => typeof v === 'number' && Number.isFinite(v));
  const note = optional('note', (v): v is string => typeof v === 'string');
  if (line === undefined) return { ok: false, error: 'line: expected a positive integer or null' };
  if (id === undefined) return { ok: false, error: 'id: expected a string or null' };
  if (similarity === undefined) return { ok: false, error: 'similarity: expected a number or null' };
  if (note === undefined) return { ok: false, error: 'note: expected a string or null' };
  return { ok: true, decision: { benchmark: text('benchmark')!, itemId: text('itemId')!, sample, decision, reviewer: text('reviewer')!, decidedAt: text('decidedAt')!, line, id, similarity, note } };
}

/** Decisions by pair, a later line replacing an earlier one (a reviewer changing their mind), and the samples confirmed contaminated. */
export class DecisionBook {
  readonly byPair = new Map<string, Decision>();

  add(decision: Decision): void {
    this.byPair.set(pairKey(decision.benchmark, decision.itemId, decision.sample), decision);
  }

  of(benchmark: string, itemId: string, sample: string): Decision | undefined {
    return this.byPair.get(pairKey(benchmark, itemId, sample));
  }

  /** Per sample hash: the contaminated decisions that drop it. */
  confirmed(): Map<string, Decision[]> {
    const out = new Map<string, Decision[]>();
    for (const d of this.byPair.values()) if (d.decision === 'contaminated') out.set(d.sample, [...(out.get(d.sample) ?? []), d]);
    return out;
  }
}
