/**
 * Browser scripts of the playground and of `verdict report`, compiled by web/client/tsconfig.json
 * without modules: each file adds to the one `Verdict` namespace, and web/page.ts inlines them in a
 * fixed order, so a report is one HTML file with no loader and no network.
 *
 * This file: the aggregates of a results file, computed in one pass (100k results are read once;
 * the page then only draws from these numbers).
 */
namespace Verdict {
  export type Row = Record<string, unknown>;

  /** A result's status as written by `verdict score` (STATUS_OK) or by the API's domain (OK). */
  export function statusOf(row: Row): string {
    const s = String(row['status'] ?? '');
    return s.startsWith('STATUS_') ? s.slice('STATUS_'.length) : s;
  }

  export function rewardOf(row: Row): number | null {
    const r = row['reward'];
    return typeof r === 'number' && Number.isFinite(r) ? r : null;
  }

  /** A numeric field of the row, its `metadata` or its `details`, by the first name present. */
  function numberField(row: Row, names: readonly string[]): number | null {
    for (const holder of [row, row['metadata'], row['details']]) {
      if (holder === null || typeof holder !== 'object') continue;
      for (const name of names) {
        const v = (holder as Row)[name];
        if (typeof v === 'number' && Number.isFinite(v)) return name.endsWith('seconds') || name === 'seconds' ? v * 1000 : v;
      }
    }
    return null;
  }

  /** Latency in milliseconds where a row carries one (verdict score writes none; see docs/playground.md). */
  const LATENCY_FIELDS = ['latency_ms', 'latencyMs', 'elapsed_ms', 'elapsedMs', 'duration_ms', 'latency_seconds', 'seconds'];
  export const latencyOf = (row: Row): number | null => numberField(row, LATENCY_FIELDS);

  /**
   * Whether the row says its response was cut at the generation limit: `truncated: true`, or a
   * `finish_reason` of "length" (OpenAI/vLLM wording), on the row or in its `metadata`. null: the
   * row does not say either way.
   */
  export function truncatedOf(row: Row): boolean | null {
    for (const holder of [row, row['metadata']]) {
      if (holder === null || typeof holder !== 'object') continue;
      const h = holder as Row;
      if (typeof h['truncated'] === 'boolean') return h['truncated'];
      const finish = h['finish_reason'] ?? h['finishReason'];
      if (typeof finish === 'string') return finish === 'length';
    }
    return null;
  }

  /** The group a result belongs to: its group id column, else its input line when it is one of n rollouts. */
  function groupOf(row: Row): string | null {
    const g = row['group_id'] ?? row['groupId'] ?? row['group_index'];
    if (typeof g === 'string' && g !== '') return `g:${g}`;
    if (typeof g === 'number') return `g:${g}`;
    if (typeof row['rollout'] === 'number' && typeof row['line'] === 'number') return `l:${row['line']}`;
    return null;
  }

  export interface Histogram {
    labels: string[];
    counts: number[];
    /** Whether the bins are those of [0, 1] (else: ten equal bins from the least to the largest value). */
    unit: boolean;
  }

  /**
   * Values binned for a chart. On [0, 1]: exactly 0, ten right-closed bins (0, .1] … (.9, 1), and
   * exactly 1 — most rewards are 0 or 1, and right-closed bins let the (0, 0.8] window of dynamic
   * sampling be whole bins. Values outside [0, 1] (reward-model scores): ten equal bins over their range.
   */
  export function histogram(values: ArrayLike<number>): Histogram {
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < values.length; i++) (min = Math.min(min, values[i]!)), (max = Math.max(max, values[i]!));
    if (values.length === 0 || (min >= 0 && max <= 1)) {
      const counts = new Array<number>(12).fill(0);
      for (let i = 0; i < values.length; i++) {
        const v = values[i]!;
        // The epsilon keeps 0.7 (7.000000000000001 × 0.1) in (.6, .7].
        counts[v <= 0 ? 0 : v >= 1 ? 11 : Math.min(10, Math.ceil(v * 10 - 1e-9))]!++;
      }
      const labels = ['0', ...Array.from({ length: 9 }, (_, k) => `≤.${k + 1}`), '<1', '1'];
      return { labels, counts, unit: true };
    }
    return evenBins(values, min, max);
  }

  /** Ten equal bins from `min` to `max`. */
  function evenBins(values: ArrayLike<number>, min: number, max: number): Histogram {
    const width = (max - min) / 10 || 1;
    const counts = new Array<number>(10).fill(0);
    for (let i = 0; i < values.length; i++) counts[Math.min(9, Math.floor((values[i]! - min) / width))]!++;
    const labels = counts.map((_, k) => `≥${Number((min + k * width).toPrecision(2))}`);
    return { labels, counts, unit: false };
  }

  /** Ten equal bins from 0 to the largest value: lengths. */
  export function lengthHistogram(values: ArrayLike<number>): Histogram {
    let max = 0;
    for (let i = 0; i < values.length; i++) max = Math.max(max, values[i]!);
    return evenBins(values, 0, max);
  }

  /** Token counts where a row carries one (a trainer's column, or joined from the input by `verdict report --input`). */
  const TOKEN_FIELDS = ['responseTokens', 'response_tokens', 'response_length', 'responseLength'];

  /** A response's length: in tokens where the row says, else in characters of the joined response; null: unknown. */
  export function lengthOf(row: Row): { value: number; unit: 'tokens' | 'characters' } | null {
    const tokens = numberField(row, TOKEN_FIELDS);
    if (tokens !== null) return { value: tokens, unit: 'tokens' };
    const chars = row['responseChars'];
    if (typeof chars === 'number') return { value: chars, unit: 'characters' };
    return typeof row['response'] === 'string' ? { value: row['response'].length, unit: 'characters' } : null;
  }

  /** On the unit bins: whether bin k lies in the (0, 0.8] window (bins 1…8). */
  export const inWindowBin = (k: number): boolean => k >= 1 && k <= 8;

  export interface VerifierStats {
    verifier: string;
    total: number;
    ok: number;
    invalid: number;
    aborted: number;
    rewardSum: number;
    histogram: Histogram;
    /** Response lengths of the results that carry one, in `lengthUnit` (tokens where any row says tokens). */
    lengths: { count: number; unit: 'tokens' | 'characters'; mean: number; meanPassed: number | null; meanFailed: number | null; histogram: Histogram } | null;
  }

  export interface Aggregates {
    total: number;
    statuses: Record<string, number>;
    verifiers: VerifierStats[];
    /** `status reason` → count, reasons of results that did not pass, largest first. */
    reasons: Array<{ status: string; reason: string; count: number }>;
    /** Groups of 2 or more results with a reward: pass rate (mean reward) histogram. */
    groups: { count: number; histogram: Histogram; inWindow: number; allZero: number; allOne: number; spread: Histogram; noSpread: number };
    latency: { count: number; p50: number; p90: number; p99: number; max: number; slowest: number[] } | null;
    truncation: { known: number; truncated: number; truncatedRewardMean: number | null; otherRewardMean: number | null };
    /** Indices of rows that did not pass: not OK, or OK with a reward below 1. */
    failures: number[];
  }

  /** The (0, 0.8] window of dynamic sampling: a group inside it has some signal and is kept. */
  export const WINDOW = { low: 0, high: 0.8 };

  function percentile(sorted: Float64Array, q: number): number {
    if (sorted.length === 0) return 0;
    return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  }

  /** One unit per verifier: tokens where any row says tokens, else characters. */
  function lengthStats(list: ReadonlyArray<{ value: number; unit: 'tokens' | 'characters'; passed: boolean }>): VerifierStats['lengths'] {
    const unit = list.some((l) => l.unit === 'tokens') ? 'tokens' : 'characters';
    const same = list.filter((l) => l.unit === unit);
    const mean = (xs: typeof same) => (xs.length ? xs.reduce((a, l) => a + l.value, 0) / xs.length : null);
    return {
      count: same.length,
      unit,
      mean: mean(same) ?? 0,
      meanPassed: mean(same.filter((l) => l.passed)),
      meanFailed: mean(same.filter((l) => !l.passed)),
      histogram: lengthHistogram(same.map((l) => l.value)),
    };
  }

  /** Groups of 2 or more rewards: their pass rates and spreads. */
  function groupStats(groups: Iterable<{ sum: number; squares: number; n: number }>): Aggregates['groups'] {
    const spreads: number[] = [];
    const rates: number[] = [];
    const counts = { count: 0, inWindow: 0, allZero: 0, allOne: 0, noSpread: 0 };
    for (const g of groups) {
      if (g.n < 2) continue;
      counts.count++;
      const rate = g.sum / g.n;
      rates.push(rate);
      // The standard deviation of the group's rewards: 0 means every rollout scored the same, no GRPO signal.
      const spread = Math.sqrt(Math.max(0, g.squares / g.n - rate * rate));
      spreads.push(spread);
      if (spread < 1e-12) counts.noSpread++;
      if (rate > WINDOW.low && rate <= WINDOW.high) counts.inWindow++;
      if (rate <= 0) counts.allZero++;
      if (rate >= 1) counts.allOne++;
    }
    return { ...counts, histogram: histogram(rates), spread: histogram(spreads) };
  }

  function latencyStats(latencies: Array<{ ms: number; index: number }>): Aggregates['latency'] {
    if (latencies.length === 0) return null;
    const sorted = Float64Array.from(latencies, (l) => l.ms).sort();
    const slowest = [...latencies].sort((a, b) => b.ms - a.ms || a.index - b.index);
    return {
      count: sorted.length,
      p50: percentile(sorted, 0.5),
      p90: percentile(sorted, 0.9),
      p99: percentile(sorted, 0.99),
      max: sorted[sorted.length - 1]!,
      slowest: slowest.slice(0, 10).map((l) => l.index),
    };
  }

  export function aggregate(rows: readonly Row[]): Aggregates {
    const statuses: Record<string, number> = {};
    const byVerifier = new Map<string, VerifierStats>();
    const rewards = new Map<string, number[]>();
    const reasons = new Map<string, { status: string; reason: string; count: number }>();
    const groups = new Map<string, { sum: number; squares: number; n: number }>();
    const lengths = new Map<string, Array<{ value: number; unit: 'tokens' | 'characters'; passed: boolean }>>();
    const latencies: Array<{ ms: number; index: number }> = [];
    const failures: number[] = [];
    let known = 0;
    let truncated = 0;
    let truncSum = 0;
    let truncN = 0;
    let otherSum = 0;
    let otherN = 0;
    rows.forEach((row, index) => {
      const status = statusOf(row);
      statuses[status] = (statuses[status] ?? 0) + 1;
      const name = String(row['verifier'] ?? '');
      let v = byVerifier.get(name);
      if (!v) {
        v = { verifier: name, total: 0, ok: 0, invalid: 0, aborted: 0, rewardSum: 0, histogram: histogram([]), lengths: null };
        byVerifier.set(name, v);
        rewards.set(name, []);
      }
      v.total++;
      const reward = status === 'OK' ? rewardOf(row) : null;
      if (status === 'OK') v.ok++;
      else if (status === 'INVALID') v.invalid++;
      else v.aborted++;
      if (reward !== null) {
        v.rewardSum += reward;
        rewards.get(name)!.push(reward);
      }
      if (reward === null || reward < 1) {
        failures.push(index);
        // INVALID reasons carry their input line ("line 7: label.gold: required"): counted without it.
        const reason = String(row['reason'] ?? '').replace(/^line \d+: /, '');
        const key = `${status}\u0000${reason}`;
        const r = reasons.get(key);
        if (r) r.count++;
        else reasons.set(key, { status, reason, count: 1 });
      }
      const group = groupOf(row);
      if (group !== null && reward !== null) {
        const g = groups.get(group);
        if (g) (g.sum += reward), (g.squares += reward * reward), g.n++;
        else groups.set(group, { sum: reward, squares: reward * reward, n: 1 });
      }
      const length = lengthOf(row);
      if (length !== null) {
        let list = lengths.get(name);
        if (!list) lengths.set(name, (list = []));
        list.push({ ...length, passed: reward !== null && reward >= 1 });
      }
      const ms = latencyOf(row);
      if (ms !== null) latencies.push({ ms, index });
      const t = truncatedOf(row);
      if (t !== null) {
        known++;
        if (t) truncated++;
        if (reward !== null) {
          if (t) (truncSum += reward), truncN++;
          else (otherSum += reward), otherN++;
        }
      }
    });
    for (const [name, values] of rewards) byVerifier.get(name)!.histogram = histogram(values);
    for (const [name, list] of lengths) byVerifier.get(name)!.lengths = lengthStats(list);
    return {
      total: rows.length,
      statuses,
      verifiers: [...byVerifier.values()].sort((a, b) => a.verifier.localeCompare(b.verifier)),
      reasons: [...reasons.values()].sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason)),
      groups: groupStats(groups.values()),
      latency: latencyStats(latencies),
      truncation: { known, truncated, truncatedRewardMean: truncN ? truncSum / truncN : null, otherRewardMean: otherN ? otherSum / otherN : null },
      failures,
    };
  }

  /**
   * What a text is: a JSON report with a `kind`, or results (JSONL, or a JSON array, of objects with
   * a `status`). A message when it is neither.
   */
  export type Parsed = { ok: true; kind: string; report: Row } | { ok: true; kind: 'results'; rows: Row[] } | { ok: false; error: string };

  export function parseReportText(text: string): Parsed {
    const body = text.replace(/^\uFEFF/, '');
    const first = body.trimStart()[0];
    if (first === '{' || first === '[') {
      try {
        const whole = JSON.parse(body) as unknown;
        if (Array.isArray(whole)) return resultsOf(whole.map((value, i) => ({ value, line: i + 1 })));
        if (whole !== null && typeof whole === 'object' && typeof (whole as Row)['kind'] === 'string') {
          return { ok: true, kind: String((whole as Row)['kind']), report: whole as Row };
        }
      } catch {
        // Not one JSON document: JSONL, read line by line below.
      }
    }
    const values: Array<{ value: unknown; line: number }> = [];
    const lines = body.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.trim() === '') continue;
      try {
        values.push({ value: JSON.parse(line) as unknown, line: i + 1 });
      } catch (error) {
        return { ok: false, error: `line ${i + 1}: not valid JSON (${(error as Error).message})` };
      }
    }
    return resultsOf(values);
  }

  /** Results are recognised by their shape: objects with a `status` and a `verifier`. */
  export function resultsOf(values: ReadonlyArray<{ value: unknown; line: number }>): Parsed {
    const rows: Row[] = [];
    for (const { value, line } of values) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: `line ${line}: expected a result object` };
      const row = value as Row;
      if (typeof row['status'] !== 'string' || !('verifier' in row)) {
        return { ok: false, error: `line ${line}: not a result (no "status" and "verifier"); expected the output of verdict score, or a report with a "kind"` };
      }
      rows.push(row);
    }
    if (rows.length === 0) return { ok: false, error: 'no results in the file' };
    return { ok: true, kind: 'results', rows };
  }
}
