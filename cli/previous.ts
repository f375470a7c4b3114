import type { JsonObject } from '../core/json';
import { formatOf } from './dataset/format';
import { openRows } from './dataset/read';

/**
 * A previous output read alongside the input (--retry-aborted): both are in input order, so one pass
 * over each finds the previous results of every input row. A row keeps its previous results when
 * none of them is ABORTED; otherwise it is scored again.
 */
export class PreviousResults {
  private pending: JsonObject | null = null;
  private done = false;

  private constructor(private readonly rows: AsyncIterator<JsonObject>) {}

  static async open(file: string): Promise<PreviousResults> {
    const format = formatOf(file, undefined, '--retry-aborted');
    if (!format.ok) throw new Error(format.error);
    const source = await openRows(file, format.format);
    async function* results(): AsyncGenerator<JsonObject> {
      for await (const row of source.rows) {
        if ('error' in row) throw new Error(`--retry-aborted ${file}: line ${row.line}: ${row.error}`);
        if (typeof row.value.line !== 'number') throw new Error(`--retry-aborted ${file}: line ${row.line}: a result without "line" (written by an older verdict?)`);
        yield row.value;
      }
    }
    return new PreviousResults(results());
  }

  private async peek(): Promise<JsonObject | null> {
    if (this.pending === null && !this.done) {
      const next = await this.rows.next();
      if (next.done) this.done = true;
      else this.pending = next.value;
    }
    return this.pending;
  }

  /** The previous results of input row `line` when all are final (not ABORTED); null to score it again. */
  async keptRows(line: number): Promise<JsonObject[] | null> {
    const rows: JsonObject[] = [];
    for (let next = await this.peek(); next !== null && (next.line as number) <= line; next = await this.peek()) {
      this.pending = null;
      if (next.line === line) rows.push(next);
    }
    if (rows.length === 0) return null;
    return rows.some((r) => r.status === 'STATUS_ABORTED') ? null : rows;
  }

  async close(): Promise<void> {
    await this.rows.return?.(undefined);
  }
}
