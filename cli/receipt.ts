import crypto from 'node:crypto';
import type { GroupOptions } from '../core/groups';
import type { Json, JsonObject } from '../core/json';
import type { Sample } from '../core/sample';
import type { Registry } from '../core/registry';
import { sectionsRead } from '../core/verifier';
import type { VerdictConfig } from '../services/config';
import { createRegistry } from '../verifiers';

/**
 * The reward receipt on every result: which verifier decided it, under which config, on which input.
 * Two results of the same row that differ can then be told apart: a different `verifier` is a
 * verifier change, a different `config` a config change, a different `input` a data change.
 */
export interface Receipt {
  /** `name@version`. */
  verifier: string;
  /** SHA-256 (first 16 hex digits) of the config that can change this verifier's verdict. */
  config: string;
  /** SHA-256 (first 16 hex digits) of what the verifier sees of the sample (all but its id). */
  input: string;
}

/** JSON with object keys sorted, so equal values hash equally whatever order they were written in. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  // Written with loops and string appends, not entries/map/join: verdict score hashes every sample.
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return out + ']';
  }
  const object = value as Record<string, unknown>;
  // The default sort orders by UTF-16 code units, as `<` on strings does.
  const keys = Object.keys(object).sort();
  let out = '{';
  for (const key of keys) {
    const v = object[key];
    if (v === undefined) continue;
    out += (out.length === 1 ? '' : ',') + JSON.stringify(key) + ':' + canonicalJson(v);
  }
  return out + '}';
}

/** One-shot SHA-256 (Node ≥ 20.12): a quarter of createHash's cost on a receipt-sized text, paid per sample. */
const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function' ? (text) => crypto.hash('sha256', text, 'hex') : (text) => crypto.createHash('sha256').update(text).digest('hex');

export function shortHash(text: string): string {
  return sha256Hex(text).slice(0, 16);
}

/**
 * `canonicalJson` of the sample less its id, its fields written in their sorted order: the same text
 * without a copy of the sample and a sort of its keys per row (`verdict score` hashes every sample).
 */
export function inputJson(sample: Sample): string {
  return (
    `{"groupId":${JSON.stringify(sample.groupId)},"label":${canonicalJson(sample.label)},"metadata":${canonicalJson(sample.metadata)}` +
    `,"response":${JSON.stringify(sample.response)},"responseTokens":${JSON.stringify(sample.responseTokens)},"verifier":${JSON.stringify(sample.verifier)}}`
  );
}

export class Receipts {
  private readonly configHashes = new Map<string, string>();

  /**
   * `config` is null when scoring happens on remote replicas whose config the CLI cannot see. The
   * sections each verifier's verdict depends on are those its definition declares (`requires`,
   * `uses`); a verifier the registry does not know depends on all of them.
   */
  constructor(
    private readonly config: VerdictConfig | null,
    private readonly groupOptions: GroupOptions | null,
    private readonly registry: Registry = createRegistry(),
  ) {}

  /** The sections hashed into `verifier`'s receipt. */
  sections(verifier: string): Array<keyof VerdictConfig> {
    const known = this.registry.get(verifier);
    // A ServiceSection is a key of VerdictConfig: this assignment is where the compiler checks it.
    if (known) return sectionsRead(known) satisfies Array<keyof VerdictConfig>;
    return Object.keys(this.config ?? {}) as Array<keyof VerdictConfig>;
  }

  private configHash(verifier: string): string {
    let hash = this.configHashes.get(verifier);
    if (hash === undefined) {
      const sections = this.sections(verifier);
      const relevant: Record<string, unknown> = { groupOptions: this.groupOptions };
      if (this.config === null) relevant.config = 'remote';
      else for (const section of sections) relevant[section] = this.config[section];
      hash = shortHash(canonicalJson(relevant));
      this.configHashes.set(verifier, hash);
    }
    return hash;
  }

  of(sample: Sample, verifierVersion: string): JsonObject {
    const receipt: Receipt = {
      verifier: `${sample.verifier}@${verifierVersion}`,
      config: this.configHash(sample.verifier),
      input: shortHash(inputJson(sample)),
    };
    return receipt as unknown as { [key: string]: Json };
  }
}
