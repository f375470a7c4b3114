import { jsonSchemaText } from './label';
import { sectionsRead, type ServiceSection, type Verifier, type VerifierExample } from './verifier';

export interface VerifierInfo {
  name: string;
  version: string;
  description: string;
  labelSchema: string;
}

/**
 * What `verdict verifiers --json` prints and GET /v1/verifiers answers: the info with its label
 * schema as an object, the config sections it reads, and its example (the playground fills it in).
 */
export interface VerifierCard extends Omit<VerifierInfo, 'labelSchema'> {
  labelSchema: unknown;
  sections: ServiceSection[];
  example: VerifierExample;
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

  cards(): VerifierCard[] {
    return this.list().map((info) => {
      const verifier = this.byName.get(info.name)!;
      return { ...info, labelSchema: JSON.parse(info.labelSchema) as unknown, sections: sectionsRead(verifier), example: verifier.example };
    });
  }

  /** The INVALID reason for a sample naming a verifier that does not exist. */
  unknownVerifierReason(name: string): string {
    if (name === '') return 'verifier: required';
    return `verifier: unknown verifier "${name}" (known: ${this.names().join(', ')})`;
  }
}
