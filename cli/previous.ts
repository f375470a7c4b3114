import { readResults, type ResultRow } from './dataset/results';

/**
 * A previous output read alongside the input (--retry-aborted): both are in input order, so one pass
 * over each finds the previous results of every input row. A row keeps its previous results when
 * none of them is ABORTED; otherwise it is scored again.
 */
export class PreviousResults {
  private pending: ResultRow | null = null;
  private done = false;

  private constructor(private readonly rows: AsyncIterator<ResultRow>) {}

  static async open(file: string): Promise<PreviousResults> {
    const results = await readResults(file, { what: '--retry-aborted', needLine: true });
    return new PreviousResults(results.rows[Symbol.asyncIterator]());
  }

  private async peek(): Promise<ResultRow | null> {
    if (this.pending === null && !this.done) {
      const next = await this.rows.next();
      if (next.done) this.done = true;
      else this.pending = next.value;
    }
    return this.pending;
  }

  /** The previous results of input row `line` when all are final (not ABORTED); null to score it again. */
  async keptRows(line: number): Promise<ResultRow[] | null> {
    const rows: ResultRow[] = [];
    for (let next = await this.peek(); next !== null && next.line! <= line; next = await this.peek()) {
      this.pending = null;
      if (next.line === line) rows.push(next);
    }
    if (rows.length === 0) return null;
    return rows.some((r) => r.status === 'ABORTED') ? null : rows;
  }

  async close(): Promise<void> {
    await this.rows.return?.(undefined);
  }
}
