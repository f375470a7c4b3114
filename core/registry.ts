import { jsonSchemaText } from './label';
import type { Verifier } from './verifier';

export interface VerifierInfo {
  name: string;
  version: string;
  description: string;
  labelSchema: string;
}

/** Verifiers by name. Built once per process (and once per worker thread) from `verifiers/index.ts`. */
export class Registry {
  private readonly byName = new Map<string, Verifier>();

  constructor(verifiers: readonly Verifier[]) {
    for (const verifier of verifiers) {
      if (this.byName.has(verifier.name)) throw new Error(`verifier "${verifier.name}" registered twice`);
      this.byName.set(verifier.name, verifier);
    }
  }

  get(name: string): Verifier | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  list(): VerifierInfo[] {
    return [...this.byName.values()].map((v) => ({
      name: v.name,
      version: v.version,
      description: v.description,
      labelSchema: jsonSchemaText(v.label),
    }));
  }

  /** The INVALID reason for a sample naming a verifier that does not exist. */
  unknownVerifierReason(name: string): string {
    if (name === '') return 'verifier: required';
    return `verifier: unknown verifier "${name}" (known: ${this.names().join(', ')})`;
  }
}
