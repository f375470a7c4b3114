/**
 * Memos of text analyses (sentences, word tokens, Punkt's period decisions) that last for one
 * evaluation. A sample's rubrics all check the same response, and loose mode checks up to eight
 * variants of it that share most of their sentences and period contexts, so each is analysed
 * once. A memo only holds results of a pure function of its key, so a verdict is the same with
 * or without it; the scope is dropped when the evaluation ends, so memory stays bounded by one
 * response and nothing carries over from one sample to the next.
 */

/**
 * What a scope memoizes. "texts": analyses of a whole text, shared by the rubrics of a sample.
 * "parts": also those of each sentence and period, which only variants of one text share; in
 * strict mode storing them cost a fifth of the tokenizer's time and saved nothing.
 */
export type Depth = 'texts' | 'parts';

interface Scope {
  depth: Depth;
  /** One table per memoized function, indexed by the id `memo()` gave it. */
  tables: Array<Table<unknown> | undefined>;
}

/**
 * A table's first few entries are a list searched with `===`, which compares string lengths
 * before contents: most tables hold a handful of texts (a response and its variants), and a Map
 * hashes every key it is given, a pass over the whole response for each lookup of a new string.
 * Past LIST_SIZE entries (a response's sentences or lines) the entries move to a Map.
 */
const LIST_SIZE = 8;

class Table<V> {
  private readonly keys: string[] = [];
  private readonly values: V[] = [];
  private map: Map<string, V> | undefined;

  get(key: string): V | undefined {
    if (this.map) return this.map.get(key);
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) if (keys[i] === key) return this.values[i];
    return undefined;
  }

  set(key: string, value: V): void {
    if (this.map) this.map.set(key, value);
    else if (this.keys.length < LIST_SIZE) {
      this.keys.push(key);
      this.values.push(value);
    } else {
      this.map = new Map(this.keys.map((k, i) => [k, this.values[i] as V]));
      this.map.set(key, value);
    }
  }
}

let scope: Scope | undefined;
let tables = 0;

/**
 * Runs `fn` inside a memo scope; a nested call shares the outer scope. The checkers are
 * synchronous, so a scope cannot leak into another evaluation (each worker thread has its own).
 */
export function withMemo<T>(depth: Depth, fn: () => T): T {
  if (scope) return fn();
  scope = { depth, tables: [] };
  try {
    return fn();
  } finally {
    scope = undefined;
  }
}

/** Whether the current scope memoizes `part` analyses: a loose-mode evaluation. */
export function memoizesParts(): boolean {
  return scope?.depth === 'parts';
}

/** A memoized function, and a look at what its current scope already holds. */
export interface Memoized<V> {
  (key: string): V;
  /** The value for `key` if this scope has computed it, without computing it. */
  cached(key: string): V | undefined;
}

/**
 * `f` memoized per scope (of depth "parts" only, for a `part` analysis). Callers must treat the
 * results as immutable: they are shared. Outside a scope it is `f` itself.
 */
export function memo<V>(f: (key: string) => V, of: 'text' | 'part' = 'text'): Memoized<V> {
  const id = tables++;
  /** The current scope, if it memoizes this kind of analysis. */
  const active = (): Scope | undefined => (scope && (of === 'text' || scope.depth === 'parts') ? scope : undefined);
  const memoized = (key: string): V => {
    const current = active();
    if (!current) return f(key);
    let values = current.tables[id] as Table<V> | undefined;
    if (!values) current.tables[id] = values = new Table<V>();
    let value = values.get(key);
    if (value === undefined) {
      value = f(key);
      values.set(key, value);
    }
    return value;
  };
  memoized.cached = (key: string): V | undefined => (active()?.tables[id] as Table<V> | undefined)?.get(key);
  return memoized;
}
