/**
 * Limits that decide `too_complex`. They count operations and sizes, never time, so the verdict for
 * an input is the same on every machine, run and worker count.
 */
export interface BudgetLimits {
  /** Characters of an extracted answer (or gold) handed to the parser. */
  maxAnswerChars: number;
  /** Tokens the lexer may produce for one answer. */
  maxTokens: number;
  /** Nesting depth of the parser (braces, parentheses, fractions, powers). */
  maxDepth: number;
  /** Abstract operations for canonicalization and comparison of one sample. */
  maxOps: number;
  /** Bits of any exact number (numerator or denominator). */
  maxBits: number;
  /** Terms of one canonical polynomial. */
  maxTerms: number;
  /** Answers a `\pm` or a list may expand to. */
  maxItems: number;
}

export const DEFAULT_LIMITS: BudgetLimits = {
  maxAnswerChars: 8192,
  maxTokens: 4096,
  maxDepth: 64,
  maxOps: 400_000,
  maxBits: 16_384,
  maxTerms: 1024,
  maxItems: 256,
};

/** Thrown when a limit is exceeded; the verifier turns it into reward 0 with reason `too_complex`. */
export class TooComplex extends Error {
  constructor(readonly limit: keyof BudgetLimits) {
    super(`too_complex: ${limit}`);
  }
}

export class Budget {
  private ops = 0;
  constructor(readonly limits: BudgetLimits = DEFAULT_LIMITS) {}

  spend(n: number): void {
    this.ops += n;
    if (this.ops > this.limits.maxOps) throw new TooComplex('maxOps');
  }

  checkBits(bits: number): void {
    if (bits > this.limits.maxBits) throw new TooComplex('maxBits');
  }

  checkTerms(terms: number): void {
    if (terms > this.limits.maxTerms) throw new TooComplex('maxTerms');
  }

  checkItems(items: number): void {
    if (items > this.limits.maxItems) throw new TooComplex('maxItems');
  }

  get spent(): number {
    return this.ops;
  }
}
