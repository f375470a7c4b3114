/**
 * Memos of text analyses (sentences, word tokens, Punkt's period decisions) that last for one
 * evaluation. Loose mode checks up to eight variants of one response, and a sample's rubrics all
 * check the same response; the variants share most of their sentences and period contexts, so
 * each is analysed once. A memo only holds results of a pure function of its key, so a verdict is
 * the same with or without it; the scope is dropped when the evaluation ends, so memory stays
 * bounded by one response and nothing carries over from one sample to the next.
 */

/** One table per memoized function, indexed by the id `memo()` gave it. */
let scope: Array<Map<string, unknown> | undefined> | undefined;
let tables = 0;

/**
 * Runs `fn` inside a memo scope; a nested call shares the outer scope. The checkers are
 * synchronous, so a scope cannot leak into another evaluation (each worker thread has its own).
 */
export function withMemo<T>(fn: () => T): T {
  if (scope) return fn();
  scope = [];
  try {
    return fn();
  } finally {
    scope = undefined;
  }
}

/** A memoized function, and a look at what its current scope already holds. */
export interface Memoized<V> {
  (key: string): V;
  /** The value for `key` if this scope has computed it, without computing it. */
  cached(key: string): V | undefined;
}

/**
 * `f` memoized per scope. Callers must treat the results as immutable: they are shared. Outside
 * a scope it is `f` itself.
 */
export function memo<V>(f: (key: string) => V): Memoized<V> {
  const id = tables++;
  const table = (): Map<string, V> | undefined => scope?.[id] as Map<string, V> | undefined;
  const memoized = (key: string): V => {
    if (!scope) return f(key);
    let values = table();
    if (!values) scope[id] = values = new Map();
    let value = values.get(key);
    if (value === undefined) {
      value = f(key);
      values.set(key, value);
    }
    return value;
  };
  memoized.cached = (key: string): V | undefined => table()?.get(key);
  return memoized;
}
