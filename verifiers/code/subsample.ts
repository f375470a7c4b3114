import { createHash } from 'node:crypto';

/** Most tests run per sample. */
export const MAX_TESTS = 50;

/**
 * Indices (ascending) of at most `max` of `count` tests, chosen by SHA-256 of `seed:index`: the
 * same subset for every rollout of a problem, on every replica and worker count. The seed is asked
 * for only when there is a choice to make (hashing every label's tests cost ~9 µs a sample).
 */
export function selectTests(count: number, seedOf: () => string, max = MAX_TESTS): number[] {
  const all = Array.from({ length: count }, (_, i) => i);
  if (count <= max) return all;
  const seed = seedOf();
  const keyed = all.map((i) => ({ i, key: createHash('sha256').update(`${seed}:${i}`).digest('hex') }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i));
  return keyed
    .slice(0, max)
    .map((k) => k.i)
    .sort((a, b) => a - b);
}

/** The seed when the label names no problem: the tests themselves identify it. */
export function testsSeed(tests: unknown): string {
  return createHash('sha256').update(JSON.stringify(tests)).digest('hex');
}
