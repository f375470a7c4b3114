import { isJsonObject } from '../../core/json';
import { fieldPath } from '../../core/label';
import { groupOptionsFromJson } from './group-options';
import type { GroupOptions } from '../../core/groups';
import type { Sample } from '../../core/sample';
import { tooDeepReason } from './depth';
import { emptySample } from './contract';
import { sampleFromJson, tooDeepField } from './json';

/** `groupOptions` is null when the request does not ask for group shaping. */
export type RequestParse =
  | { ok: true; samples: Sample[]; rejected: Map<number, string>; groupOptions: GroupOptions | null }
  | { ok: false; error: string };

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * A ScoreRequest in its proto3 JSON form (`{"samples": [...]}`). Wrong types anywhere make the
 * request malformed as a whole, as the same request could not have been encoded in protobuf; a
 * label that breaks its verifier's schema, or nests past the depth limit, is the sample's own problem
 * (an INVALID result, listed in `rejected` by position).
 */
export function scoreRequestFromJson(body: unknown): RequestParse {
  if (!isJsonObject(body)) return { ok: false, error: 'request: expected a JSON object with "samples"' };
  const unknown = Object.keys(body).filter((key) => !['samples', 'groupOptions', 'group_options'].includes(key));
  if (unknown.length > 0) return { ok: false, error: `request.${unknown[0]}: unknown field` };
  const raw = body.samples ?? [];
  if (!Array.isArray(raw)) return { ok: false, error: 'samples: expected an array' };
  const samples: Sample[] = [];
  const rejected = new Map<number, string>();
  for (let i = 0; i < raw.length; i++) {
    const item = raw[i];
    const deep = tooDeepField(item);
    if (deep && isJsonObject(item)) {
      rejected.set(i, tooDeepReason(deep));
      samples.push(Object.assign(emptySample(), { id: text(item.id), verifier: text(item.verifier), groupId: text(item.groupId ?? item.group_id) }));
      continue;
    }
    const parsed = sampleFromJson(item, () => `samples[${i}]`, true);
    if (!parsed.ok) return { ok: false, error: parsed.error };
    samples.push(parsed.sample);
  }
  const rawOptions = body.groupOptions ?? body.group_options;
  if (rawOptions === undefined || rawOptions === null) return { ok: true, samples, rejected, groupOptions: null };
  const options = groupOptionsFromJson(rawOptions, fieldPath('', ['group_options']));
  if (!options.ok) return { ok: false, error: options.error };
  return { ok: true, samples, rejected, groupOptions: options.options };
}
