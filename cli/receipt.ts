import { createHash } from 'node:crypto';
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
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
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
    const { id: _id, ...input } = sample;
    const receipt: Receipt = {
      verifier: `${sample.verifier}@${verifierVersion}`,
      config: this.configHash(sample.verifier),
      input: shortHash(canonicalJson(input)),
    };
    return receipt as unknown as { [key: string]: Json };
  }
}
