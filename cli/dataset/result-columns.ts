import type { DescField } from '@bufbuild/protobuf';
import { RESULT_BEYOND, SAMPLE_BEYOND } from '../../services/wire/contract';
import { ScoreResultSchema } from '../../services/wire/gen/verdict/v1/score_pb';
import type { FieldSpec } from '../../services/wire/fields';

/**
 * The ScoreResult fields a row leaves out: `line` and `rollout` place it in the input instead of
 * `index`, and group summaries go to the --groups file.
 */
const NOT_IN_ROW: readonly string[] = ['index', 'group'];

/** The ScoreResult fields a row carries, from the generated descriptor: a field the proto gains is a column too. */
export const ROW_RESULT_FIELDS: readonly DescField[] = ScoreResultSchema.fields.filter((field) => !NOT_IN_ROW.includes(field.localName));

/** The row's own columns, placed right after the result's `id`: where in the input it comes from. */
const PLACE_COLUMNS = ['line', 'rollout', 'groupId'];

/**
 * A result row's columns in the order written (docs/cli.md): the ScoreResult fields the row carries
 * with the place columns after `id`, then the receipt. `response` follows with --keep-response.
 */
export const RESULT_ROW_COLUMNS: readonly string[] = [
  ...ROW_RESULT_FIELDS.flatMap((field) => (field.localName === 'id' ? [field.jsonName, ...PLACE_COLUMNS] : [field.jsonName])),
  'receipt',
];

/** The tables rows are made with, from the descriptors (row-fields.ts's RowFields; that module loads this one when it needs them). */
export function rowFieldsFromDescriptors(): { sampleBeyond: readonly FieldSpec[]; resultBeyond: readonly FieldSpec[]; resultColumns: readonly string[] } {
  return { sampleBeyond: SAMPLE_BEYOND, resultBeyond: RESULT_BEYOND, resultColumns: RESULT_ROW_COLUMNS };
}
