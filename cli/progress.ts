import { SingleBar } from 'cli-progress';
import type { Summary } from './summary';

function size(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  return s >= 3600 ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m` : s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/**
 * Progress on stderr by bytes of the input consumed, so it needs no line count (works on stdin and on
 * files of any size): percent and ETA when the size is known, rows/s, and counts per status.
 */
export class Progress {
  private readonly bar: SingleBar;
  private readonly started = Date.now();

  constructor(
    private readonly totalBytes: number | null,
    private readonly bytesRead: () => number,
  ) {
    const format =
      totalBytes === null
        ? 'scoring {done} read | {rate} rows/s | ok {ok} invalid {invalid} aborted {aborted}'
        : 'scoring [{bar}] {percentage}% {done}/{size} | {rate} rows/s | eta {left} | ok {ok} invalid {invalid} aborted {aborted}';
    this.bar = new SingleBar({ format, stream: process.stderr, hideCursor: true, etaBuffer: 50 });
    this.bar.start(Math.max(1, totalBytes ?? 1), 0, this.payload(null));
  }

  private payload(summary: Summary | null): Record<string, string | number> {
    const elapsed = Math.max(0.001, (Date.now() - this.started) / 1000);
    const read = this.bytesRead();
    const left = this.totalBytes !== null && read > 0 ? (elapsed * (this.totalBytes - read)) / read : Infinity;
    return {
      done: size(read),
      size: size(this.totalBytes ?? 0),
      rate: summary ? Math.round(summary.total / elapsed) : 0,
      left: duration(left),
      ok: summary?.countOf('OK') ?? 0,
      invalid: summary?.countOf('INVALID') ?? 0,
      aborted: summary?.countOf('ABORTED') ?? 0,
    };
  }

  update(summary: Summary): void {
    this.bar.update(this.totalBytes === null ? 0 : Math.min(this.bytesRead(), this.totalBytes), this.payload(summary));
  }

  stop(): void {
    this.bar.stop();
  }
}
