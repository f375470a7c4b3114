import type { GroupSummary, ShapedResult } from '../../core/groups';
import type { Sample } from '../../core/sample';
import { STATUS_NAMES } from './json';
import { jsonToStruct, structToJson, type ProtoStruct } from './struct';

/** A Sample as proto-loader decodes it (LOADER_OPTIONS). */
export interface ProtoSample {
  id?: string;
  verifier?: string;
  response?: string;
  label?: ProtoStruct | null;
  groupId?: string;
  responseTokens?: number;
  metadata?: ProtoStruct | null;
}

export function sampleFromProto(message: ProtoSample): Sample {
  return {
    id: message.id ?? '',
    verifier: message.verifier ?? '',
    response: message.response ?? '',
    label: structToJson(message.label),
    groupId: message.groupId ?? '',
    responseTokens: message.responseTokens ?? 0,
    metadata: structToJson(message.metadata),
  };
}

export function sampleToProto(sample: Sample): ProtoSample {
  return { ...sample, label: jsonToStruct(sample.label), metadata: jsonToStruct(sample.metadata) };
}

export interface ProtoResult {
  id: string;
  index: number;
  status: string;
  reward?: number;
  reason: string;
  verifier: string;
  verifierVersion: string;
  details: ProtoStruct;
  advantage?: number;
  group?: GroupSummary;
}

export function resultToProto(result: ShapedResult, group?: GroupSummary): ProtoResult {
  const out: ProtoResult = {
    id: result.id,
    index: result.index,
    status: STATUS_NAMES[result.status],
    reason: result.reason,
    verifier: result.verifier,
    verifierVersion: result.verifierVersion,
    details: jsonToStruct(result.details),
  };
  if (result.reward !== undefined) out.reward = result.reward;
  if (result.advantage !== undefined) out.advantage = result.advantage;
  if (group) out.group = group;
  return out;
}
