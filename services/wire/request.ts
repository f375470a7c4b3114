import { isJsonObject } from '../../core/json';
import type { Sample } from '../../core/sample';
import { sampleFromJson } from './json';

export type RequestParse = { ok: true; samples: Sample[] } | { ok: false; error: string };

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
  return { ok: true, samples };
}
