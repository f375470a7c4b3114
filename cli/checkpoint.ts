import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { SummaryState } from './summary';

/**
 * A resume checkpoint, written beside the output after each batch reaches the disk. Output bytes past
 * `outputBytes` belong to a batch whose checkpoint was never written (killed mid-batch): --resume cuts
 * them off and re-scores from the row after `line`. Batches end at the same rows on every run, so the
 * resumed output is byte for byte the uninterrupted one.
 */
/** What must match for a resume to continue a run: a hash of each part that can change a result. */
export interface ResumeKey {
  input: string;
  output: string;
  mapping: string;
  verifiers: string;
  config: string;
  groups: string;
  retryAborted: string;
}

export interface Checkpoint {
  version: 2;
  key: ResumeKey;
  /** The last input row whose results are all written. */
  line: number;
  outputBytes: number;
  groupsBytes: number | null;
  summary: SummaryState;
}

export function checkpointPath(output: string): string {
  return `${output}.resume.json`;
}

export function readCheckpoint(output: string): Checkpoint | null {
  const file = checkpointPath(output);
  if (!existsSync(file)) return null;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: unreadable checkpoint (${(error as Error).message}); delete it to start over`);
  }
  const checkpoint = value as Checkpoint;
  if (checkpoint.version !== 2 || typeof checkpoint.key !== 'object' || typeof checkpoint.line !== 'number' || typeof checkpoint.outputBytes !== 'number') {
    throw new Error(`${file}: not a checkpoint of this version of verdict; delete it to start over`);
  }
  return checkpoint;
}

/** Write-then-rename with fsyncs: after a crash the checkpoint is the old one or the new one, never half. */
export function writeCheckpoint(output: string, checkpoint: Checkpoint): void {
  const file = checkpointPath(output);
  const temp = `${file}.tmp`;
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, JSON.stringify(checkpoint));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
  const dir = openSync(path.dirname(path.resolve(file)), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

export function removeCheckpoint(output: string): void {
  rmSync(checkpointPath(output), { force: true });
}
