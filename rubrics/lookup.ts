import type * as Registry from './registry';

// The constraint registry, loaded on the first lookup rather than imported: its ~30 modules (the
// checkers, their kwargs schemas, word lists and regular-expression engine) are ~50 ms of every
// pool thread's start-up, and a run without `if` samples (`verdict score` on a qa file) never
// looks a constraint up. The `if` label's schema, and so `verdict verifiers`, does not need them.

let registry: typeof Registry | undefined;

function loaded(): typeof Registry {
  return (registry ??= require('./registry') as typeof Registry);
}

export function constraintById(id: string): ReturnType<typeof Registry.constraintById> {
  return loaded().constraintById(id);
}

export function constraintIds(): string[] {
  return loaded().constraintIds();
}
