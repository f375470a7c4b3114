import { resolveGroupOptions, type GroupOptionsInput, type GroupOptionsParse } from '../../core/groups';
import { GroupOptionsSchema } from './gen/verdict/v1/score_pb';
import { readMessageJson } from './json';

/** `groupOptions` of an HTTP request, a CLI flag or a trainer route, by the generated descriptor; errors name the field. */
export function groupOptionsFromJson(value: unknown, root = 'group_options'): GroupOptionsParse {
  const read = readMessageJson(GroupOptionsSchema, value, root);
  if (!read.ok) return read;
  return resolveGroupOptions(read.fields as GroupOptionsInput, root);
}
