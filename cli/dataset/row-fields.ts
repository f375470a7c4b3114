// The tables from the Score API's descriptors that rows are read and written with: the Sample and
// ScoreResult fields beyond those the code names, and a result row's columns. The calling thread of
// `verdict score` builds them from the descriptors (result-columns.ts) and gives them to its pool
// threads with each job (pool-rows.ts), so that a thread need not load protobuf-es and the generated
// descriptors for them: ~85 ms of CPU a thread at start-up, measured, of the ~0.45 s a thread spent
// loading modules (dataset bench, 2026-12-07).
import type { FieldSpec } from '../../services/wire/fields';
import type * as ResultColumns from './result-columns';

export interface RowFields {
  sampleBeyond: readonly FieldSpec[];
  resultBeyond: readonly FieldSpec[];
  /** A result row's columns in the order written (result-columns.ts). */
  resultColumns: readonly string[];
}

let fields: RowFields | null = null;

/** The tables: given to this thread, or built from the descriptors on first use. */
export function rowFields(): RowFields {
  return (fields ??= (require('./result-columns') as typeof ResultColumns).rowFieldsFromDescriptors());
}

/** Tables built by another thread from the same descriptors (one build of the code: the same tables). */
export function useRowFields(given: RowFields): void {
  fields ??= given;
}
