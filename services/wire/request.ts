import { isJsonObject } from '../../core/json';
import { groupOptionsFromJson } from './group-options';
import type { GroupOptions } from '../../core/groups';
import type { Sample } from '../../core/sample';
import { sampleFromJson } from './json';

/** `groupOptions` is null when the request does not ask for group shaping. */
export type RequestParse = { ok: true; samples: Sample[]; groupOptions: GroupOptions | null } | { ok: false; error: string };

/**
 * A ScoreRequest in its proto3 JSON form (`{"samples": [...]}`). Wrong types anywhere make the
 * request malformed as a whole, as the same request could not have been encoded in protobuf;
 * a label that breaks its verifier's schema is the sample's own problem (an INVALID result).
 */
export function scoreRequestFromJson(body: unknown): RequestParse {
  if (!isJsonObject(body)) return { ok: false, error: 'request: expected a JSON object with "samples"' };
  const unknown = Object.keys(body).filter((key) => !['samples', 'groupOptions', 'group_options'].includes(key));
  if (unknown.length > 0) return { ok: false, error: `request.${unknown[0]}: unknown field` };
  const raw = body.samples ?? [];
  if (!Array.isArray(raw)) return { ok: false, error: 'samples: expected an array' };
  const samples: Sample[] = [];
  for (let i = 0; i < raw.length; i++) {
    const parsed = sampleFromJson(raw[i], `samples[${i}]`);
    if (!parsed.ok) return { ok: false, error: parsed.error };
    samples.push(parsed.sample);
  }
  const rawOptions = body.groupOptions ?? body.group_options;
  if (rawOptions === undefined || rawOptions === null) return { ok: true, samples, groupOptions: null };
  const options = groupOptionsFromJson(rawOptions);
  if (!options.ok) return { ok: false, error: options.error };
  return { ok: true, samples, groupOptions: options.options };
}
