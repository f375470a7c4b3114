import type { RoutedSample, Sample } from '../../core/sample';
import type { PackedSamples } from './encoded';

/**
 * A batch as the engine reads it: each sample's routing fields up front, the whole sample only where
 * it is scored. Two implementations: whole samples in an array (`ArrayBatch`: the CLI, trainer
 * routes, tests), and a request the transport scanned without building its samples (services/wire:
 * `scanScoreRequest`, `scanJsonScoreRequest`), whose pure samples go to the pool threads still in
 * their wire bytes, so the thread every request passes through neither builds nor copies them.
 */
export interface SampleBatch {
  /** Each sample's routing fields, in input order. */
  readonly routes: readonly RoutedSample[];
  /** An upper bound on the characters of sample `index`'s response (a scanned batch knows its UTF-8 bytes). */
  responseCharsAtMost(index: number): number;
  /** The whole sample at `index` (decoded from the bytes when scanned). */
  sample(index: number): Sample;
  /**
   * These samples as one pool task carries them: the objects themselves, or one message of the
   * request's wire format (a buffer of its own, which the pool moves to the thread).
   */
  chunk(indices: readonly number[]): Sample[] | PackedSamples;
}

/** A batch left in its wire bytes: its chunks are messages of the request's format, decoded on the pool thread. */
export interface ScannedBatch extends SampleBatch {
  chunk(indices: readonly number[]): PackedSamples;
}

/** A batch of whole samples. */
export class ArrayBatch implements SampleBatch {
  constructor(readonly routes: readonly Sample[]) {}

  responseCharsAtMost(index: number): number {
    return this.routes[index]!.response.length;
  }

  sample(index: number): Sample {
    return this.routes[index]!;
  }

  chunk(indices: readonly number[]): Sample[] {
    return indices.map((i) => this.routes[i]!);
  }
}

/** `samples` as a batch: an array of whole samples is wrapped, a batch is itself. */
export function asBatch(samples: readonly Sample[] | SampleBatch): SampleBatch {
  return 'routes' in samples ? samples : new ArrayBatch(samples);
}
