import type { JsonObject } from '../../core/json';
import { formatOf, outputFormatOf, type DatasetFormat } from '../dataset/format';
import { openRows, type InputRow, type RowSource } from '../dataset/read';
import { openSink, type OutputRow, type ResultSink } from '../dataset/write';
import { Progress } from '../progress';

/**
 * Files in and out of `verdict curate`: every format `verdict score` reads and writes (JSONL, .gz,
 * .zst, Parquet, by extension or flag). Kept rows are written as they were read — a JSONL line byte
 * for byte, a Parquet row with its columns' own types — and records (dropped rows with their reason,
 * clusters, per-prompt tallies) are JSON objects in the format of their file's extension.
 */

export interface OpenedInput {
  source: RowSource;
  format: DatasetFormat;
}

export async function openInput(path: string, formatFlag: string | undefined, what: string): Promise<OpenedInput> {
  const choice = formatOf(path, formatFlag, what);
  if (!choice.ok) throw new Error(choice.error);
  return { source: await openRows(path, choice.format), format: choice.format };
}

/** An output file of a curate command, as its command line names it. */
export interface OutputSpec {
  path: string | undefined;
  /** The option that names it (`-o`, `--removed`): errors say which. */
  option: string;
  /** The command's format option for this output (`--output-format` and its value); others follow their extension. */
  format?: { flag: string; value: string | undefined };
}

/** `-o`: the rows kept, in --output-format or its extension's format. */
export function keptOutput(path: string | undefined, format: string | undefined): OutputSpec {
  return { path, option: '-o', format: { flag: '--output-format', value: format } };
}

function outputFormat(spec: OutputSpec & { path: string }): DatasetFormat {
  const choice = outputFormatOf(spec.path, spec.format?.value, spec.option, spec.format?.flag ?? null);
  if (!choice.ok) throw new Error(choice.error);
  return choice.format;
}

/**
 * Every output's name checked before the input or any output is opened: a bad name (the last one
 * given, say) stops the command with no file created and none left open.
 */
export function checkOutputs(...specs: OutputSpec[]): void {
  for (const spec of specs) if (spec.path !== undefined) outputFormat({ ...spec, path: spec.path });
}

/** Batched writes of rows or records to one file. */
export class Output {
  private readonly sink: ResultSink;
  private pending: OutputRow[] = [];
  count = 0;
  /** A JSONL-family file: an input line can be written as it was read, unparsed. */
  readonly takesLines: boolean;

  readonly path: string;

  constructor(spec: OutputSpec & { path: string }, input: OpenedInput | null) {
    this.path = spec.path;
    const format = outputFormat(spec);
    this.takesLines = format !== 'parquet';
    this.sink = openSink(spec.path, format, { durable: false, inputRows: true, parquetColumns: input?.source.parquetColumns ?? null });
  }

  /** An input row as it was read. */
  async row(row: Extract<InputRow, { value: JsonObject }>): Promise<void> {
    await this.push({ json: row.value, ...(row.native ? { native: row.native } : {}), ...(row.text !== undefined ? { text: row.text } : {}) });
  }

  /** A JSONL input line, unparsed (only where `takesLines`). */
  async line(text: string): Promise<void> {
    await this.push({ json: {}, text });
  }

  async record(json: JsonObject): Promise<void> {
    await this.push({ json });
  }

  private async push(row: OutputRow): Promise<void> {
    this.count++;
    this.pending.push(row);
    if (this.pending.length >= 1024) await this.flush();
  }

  async flush(): Promise<void> {
    const rows = this.pending;
    this.pending = [];
    await this.sink.write(rows);
  }

  /** Complete: the file takes its name (it was written under a temporary one). */
  async close(): Promise<void> {
    await this.flush();
    await this.sink.close();
  }

  /** Stopped by an error: the partial file is removed, so nothing is left under the output's name. */
  async abandon(): Promise<void> {
    await this.sink.abandon();
  }
}

/** Closes every output when the command completed (`ok`), else abandons them. */
export async function finishOutputs(ok: boolean, ...outputs: Array<Output | null | undefined>): Promise<void> {
  for (const out of outputs) await (ok ? out?.close() : out?.abandon());
}

/** The output `spec` names, opened (written under a temporary name until closed); null where the option was not given. */
export function maybeOutput(spec: OutputSpec, input: OpenedInput | null): Output | null {
  return spec.path === undefined ? null : new Output({ ...spec, path: spec.path }, input);
}

/** A row that is not JSON (or not an object) stops the command, naming the file and line: nothing is dropped unseen. */
export function rowOrThrow(row: InputRow, path: string): Extract<InputRow, { value: JsonObject }> {
  if ('error' in row) throw new Error(`${path}:${row.line}: ${row.error}`);
  return row;
}

export function progressFor(source: { totalBytes: number | null; bytesRead(): number }, enabled: boolean, verb: string, counters: readonly string[]): Progress | null {
  return enabled && process.stderr.isTTY === true ? new Progress(source.totalBytes, () => source.bytesRead(), verb, counters) : null;
}
