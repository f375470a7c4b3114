/** Small helpers shared by the benchmarks: timing, percentiles, aligned table rows. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { value, seconds: Number(process.hrtime.bigint() - start) / 1e9 };
}

/** The best of `runs` timings: the least disturbed by other work on a shared machine. */
export async function bestOf<T>(runs: number, fn: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  let best: { value: T; seconds: number } | null = null;
  for (let i = 0; i < runs; i++) {
    const t = await timed(fn);
    if (!best || t.seconds < best.seconds) best = t;
  }
  return best!;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function row(cells: Array<string | number>, widths: number[]): string {
  return cells.map((c, i) => String(c).padEnd(widths[i] ?? 12)).join(' ');
}

export function heading(title: string): void {
  process.stdout.write(`\n== ${title} ==\n`);
}
