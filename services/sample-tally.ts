import type { Registry } from 'prom-client';

/**
 * The per-sample metrics, counted on the hot path in plain numbers and handed to prom-client's
 * registry only when it is scraped. Every result passes through `Metrics.onResult` on the main
 * thread; prom-client's labelled `inc`/`observe` validate and hash their labels object on each call
 * (~0.6 µs a result for the three series, about a sixth of the main thread's work per sample in the
 * serving bench). Here a result costs two Map lookups and a bucket scan. The exposition is prom-client's own:
 * these objects answer `get()` in the shape its registry formats (as its Counter and Histogram do).
 */

interface Series {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  /** How prom-client's cluster registry merges the series of several processes. */
  aggregator: 'sum';
  values: Array<{ labels: Record<string, string | number>; value: number; metricName?: string }>;
}

/** A counter of samples by two label values (verifier, status). */
export class PairCounter {
  private readonly cells = new Map<string, Map<string, { count: number }>>();
  /** Each pair's labels and cell, in the order the pairs first came (as prom-client lists them). */
  private readonly series: Array<{ labels: Record<string, string>; cell: { count: number } }> = [];

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly [string, string],
  ) {}

  inc(first: string, second: string): void {
    let bySecond = this.cells.get(first);
    if (bySecond === undefined) this.cells.set(first, (bySecond = new Map()));
    const cell = bySecond.get(second);
    if (cell !== undefined) {
      cell.count++;
      return;
    }
    const added = { count: 1 };
    bySecond.set(second, added);
    this.series.push({ labels: { [this.labelNames[0]]: first, [this.labelNames[1]]: second }, cell: added });
  }

  /** The series as prom-client's registry reads a metric. */
  get(): Series {
    const values = this.series.map(({ labels, cell }) => ({ labels, value: cell.count }));
    return { name: this.name, help: this.help, type: 'counter', aggregator: 'sum', values };
  }

  reset(): void {
    this.cells.clear();
    this.series.length = 0;
  }

  register(registry: Registry): this {
    registry.registerMetric(this as never);
    return this;
  }
}

/** A histogram by one label (verifier), with fixed bucket bounds. */
export class LabelledHistogram {
  /** As prom-client's metrics name theirs. */
  readonly labelNames: readonly [string];
  private readonly cells = new Map<string, { buckets: Float64Array; sum: number; count: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelName: string,
    private readonly bounds: readonly number[],
  ) {
    this.labelNames = [labelName];
  }

  observe(label: string, value: number): void {
    let cell = this.cells.get(label);
    if (cell === undefined) this.cells.set(label, (cell = { buckets: new Float64Array(this.bounds.length), sum: 0, count: 0 }));
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        cell.buckets[i]!++;
        break;
      }
    }
    cell.sum += value;
    cell.count++;
  }

  /** Cumulative buckets, then sum and count, per label value: Prometheus's histogram series. */
  get(): Series {
    const values: Series['values'] = [];
    for (const [label, cell] of this.cells) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += cell.buckets[i]!;
        values.push({ labels: { le: this.bounds[i]!, [this.labelName]: label }, value: cumulative, metricName: `${this.name}_bucket` });
      }
      values.push({ labels: { le: '+Inf', [this.labelName]: label }, value: cell.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { [this.labelName]: label }, value: cell.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { [this.labelName]: label }, value: cell.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: 'histogram', aggregator: 'sum', values };
  }

  reset(): void {
    this.cells.clear();
  }

  register(registry: Registry): this {
    registry.registerMetric(this as never);
    return this;
  }
}
