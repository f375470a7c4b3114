import { createHash } from 'node:crypto';
import { collapseWhitespace } from './text';

/**
 * The dedup key of a problem statement, the recipe's Coding RL rule: SHA-256 of the statement lower
 * cased, with every run of whitespace (spaces, tabs, newlines, Unicode spaces) one space and the
 * ends trimmed. Nothing else is changed: punctuation, digits and Unicode forms still tell two
 * statements apart, so two rows share a key only when a reader would see the same words.
 */
export function dedupKey(statement: string): string {
  return createHash('sha256').update(collapseWhitespace(statement)).digest('hex');
}
