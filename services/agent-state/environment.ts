import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';

/** better-sqlite3 (a native addon), loaded when the first environment is built, not by every run that imports the services. */
function sqlite(): typeof Database {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('better-sqlite3') as typeof Database;
}

/**
 * An AgentWorldModel environment's initial database, built as its `reset_db` builds it: each table's
 * DDL, then its indexes (and `examples`), the first failing statement ending that table's list; then
 * the seed data's INSERTs one by one with foreign keys on, a failing one skipped — every statement as
 * Python's sqlite3 runs it (`pythonExecute`). Skipping is AWM's own behaviour, so the database is the
 * one its environment served the agent.
 *
 * The clock: AWM's seed data writes `datetime('now', '-3 days')` and its DDL `DEFAULT
 * CURRENT_TIMESTAMP`. Here "now" is a fixed reference time (`agentState.referenceTime`, UTC, and
 * local time is UTC), so one environment gives the same bytes — and one sample the same reward — on
 * every run and every replica.
 */
export interface AwmSchema {
  /** As released: a table without `ddl`, or with a null list, fails as AWM's `table["ddl"]` / iteration does. */
  tables: Array<{ name?: string; ddl?: string; indexes?: string[] | null; examples?: string[] | null }>;
}
export interface AwmSeed {
  tables: Array<{ table_name?: string; insert_statements?: string[] }>;
}

export interface BuiltEnvironment {
  /** The SQLite file, base64. */
  sqlite: string;
  /** SHA-256 of everything the bytes depend on: the address the build is kept under. */
  key: string;
  tables: number;
  /** Tables whose DDL failed and seed statements that failed, skipped as AWM skips them. */
  skipped: { tables: number; statements: number };
}

/** Bump when the build changes the bytes it makes from the same input. */
const BUILD_VERSION = 'awm-env-2';

/** One build per distinct input in this process, shared by every service and sample. */
const built = new Map<string, BuiltEnvironment>();

export function environmentKey(schema: AwmSchema, seed: AwmSeed, referenceTime: string): string {
  return createHash('sha256').update(JSON.stringify([BUILD_VERSION, referenceTime, schema, seed])).digest('hex');
}

export function buildEnvironment(schema: AwmSchema, seed: AwmSeed, referenceTime: string): BuiltEnvironment {
  const key = environmentKey(schema, seed, referenceTime);
  let found = built.get(key);
  if (!found) built.set(key, (found = build(schema, seed, referenceTime, key)));
  return found;
}

/** How many builds this process has made (for tests and the bench: a build must happen once). */
export function environmentBuilds(): number {
  return built.size;
}

/**
 * The build runs every statement twice: on the database it keeps, whose clock is the reference time,
 * and first on a shadow with SQLite's own date/time functions. Only the shadow can say whether a
 * statement calls a clock function with `now` where SQLite forbids it (a CHECK constraint, generated
 * column or index expression: "non-deterministic use of datetime() in a CHECK constraint") — the
 * overrides cannot tell those calls from the allowed ones — and AWM's reset, on SQLite's own
 * functions, loses every such row. A statement the shadow refuses so is not run on the kept
 * database; any other outcome is the kept database's own. The two can hold different rows where a
 * constraint compares a seeded time with a fixed one (the shadow's "now" is the real clock); the
 * shadow is not copied from the kept database then, since that copy would carry the kept schema's
 * rewritten keywords (`CHECK (at <= CURRENT_TIMESTAMP)`, allowed, would read as
 * `datetime('now')`, refused). Rows matter to the shadow's answer only through statements that read
 * other rows (INSERT … SELECT, UPDATE, DELETE) on such a table.
 */
const NON_DETERMINISTIC = /non-deterministic use of/i;

/**
 * Whether any statement of the schema can call a clock function where SQLite requires a
 * deterministic value: only then is the shadow needed. A `DEFAULT CURRENT_TIMESTAMP` is evaluated
 * where "now" is allowed; any other clock function or keyword anywhere in the schema (a CHECK, a
 * generated column, an index, but also a trigger or a default expression) turns the shadow on.
 */
export function schemaReadsClock(schema: AwmSchema): boolean {
  const text = schema.tables.flatMap((t) => [t.ddl ?? '', ...(t.indexes ?? []), ...(t.examples ?? [])]).join('\n');
  return /\b(date|time|datetime|julianday|unixepoch|strftime)\s*\(|\bCURRENT_(TIMESTAMP|DATE|TIME)\b/i.test(text.replace(/\bDEFAULT\s+CURRENT_(TIMESTAMP|DATE|TIME)\b/gi, ''));
}

class Build {
  db: Database.Database;
  /** null: the schema never reads the clock, so SQLite cannot refuse a statement for it. */
  private shadow: Database.Database | null;
  /** SQLite's own date/time functions, without overrides: they answer the kept database's calls. */
  private readonly clock: Database.Database;
  constructor(
    private readonly referenceTime: string,
    shadow: boolean,
  ) {
    const Database = sqlite();
    this.clock = new Database(':memory:');
    this.db = pythonConnection(new Database(':memory:'));
    fixClock(this.db, this.clock, referenceTime);
    this.shadow = shadow ? pythonConnection(new Database(':memory:')) : null;
  }

  /** One statement, as AWM's `cursor.execute` runs it; throws as it would raise. */
  run(sql: string): void {
    if (this.shadow === null) {
      pythonExecute(this.db, withClock(sql));
      return;
    }
    try {
      pythonExecute(this.shadow, sql);
    } catch (error) {
      if (NON_DETERMINISTIC.test((error as Error).message)) throw error;
    }
    pythonExecute(this.db, withClock(sql));
  }

  /** Python's `conn.commit()`: a failing COMMIT (deferred foreign keys) rolls back, as AWM's except does. */
  commit(): boolean {
    let ok = true;
    for (const db of [this.db, this.shadow]) {
      if (db === null || !db.inTransaction) continue;
      try {
        db.exec('COMMIT');
      } catch {
        // Some failures (a full disk) end the transaction themselves.
        if (db.inTransaction) db.exec('ROLLBACK');
        if (db === this.db) ok = false;
      }
    }
    return ok;
  }

  /** AWM seeds on a new connection: connection state (pragmas, temp tables) does not carry over. */
  reopen(): void {
    const Database = sqlite();
    const next = pythonConnection(new Database(this.db.serialize()));
    fixClock(next, this.clock, this.referenceTime);
    this.db.close();
    this.db = next;
    if (this.shadow === null) return;
    const shadow = pythonConnection(new Database(this.shadow.serialize()));
    this.shadow.close();
    this.shadow = shadow;
  }

  close(): void {
    this.db.close();
    this.shadow?.close();
    this.clock.close();
  }
}

function build(schema: AwmSchema, seed: AwmSeed, referenceTime: string, key: string): BuiltEnvironment {
  const run = new Build(referenceTime, schemaReadsClock(schema));
  try {
    const skipped = { tables: 0, statements: 0 };
    // create_sqlite_database: one connection (foreign keys off, Python's default); per table its
    // DDL, indexes and examples, the first failure ending the table's list; then one commit.
    for (const table of schema.tables) {
      try {
        if (typeof table.ddl !== 'string') throw new Error('no ddl');
        run.run(table.ddl);
        // `table.get("indexes", [])`: a null list is a TypeError after the DDL ran.
        for (const list of [table.indexes, table.examples]) {
          if (list === null) throw new Error('not a list');
          for (const sql of list ?? []) run.run(sql);
        }
      } catch {
        skipped.tables++;
      }
    }
    run.commit();
    // execute_sample_data: a new connection, PRAGMA foreign_keys = ON, every INSERT in turn (a
    // failing one skipped), one commit; a commit that fails loses every seed row (AWM rolls back).
    run.reopen();
    run.run('PRAGMA foreign_keys = ON;');
    let statements = 0;
    for (const table of seed.tables) {
      for (const sql of table.insert_statements ?? []) {
        statements++;
        try {
          run.run(sql);
        } catch {
          skipped.statements++;
        }
      }
    }
    if (!run.commit()) skipped.statements = statements;
    const tables = (run.db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'").pluck().get() as number) ?? 0;
    return { sqlite: run.db.serialize().toString('base64'), key, tables, skipped };
  } finally {
    run.close();
  }
}

/**
 * A new connection as `sqlite3.connect` opens one: foreign keys off. better-sqlite3's SQLite is
 * built with them on by default (SQLITE_DEFAULT_FOREIGN_KEYS=1), which would refuse the `examples`
 * rows AWM's schema step writes unchecked.
 */
function pythonConnection(db: Database.Database): Database.Database {
  db.pragma('foreign_keys = OFF');
  return db;
}

/**
 * `cursor.execute(sql)` of Python 3.12's sqlite3 (AWM's interpreter) with its default, legacy
 * transaction control: one statement only (a second `;` is "You can only execute one statement at
 * a time", where SQLite alone would take it); a statement of nothing but blanks and comments does
 * nothing; INSERT/UPDATE/DELETE/REPLACE (after blanks and comments) open a transaction when none
 * is open, other statements run as they are (a seed's own `BEGIN`/`COMMIT` or
 * `PRAGMA foreign_keys` acts as it did for AWM); a statement that returns rows is stepped once.
 */
export function pythonExecute(db: Database.Database, sql: string): void {
  const tokens = sqlTokens(sql);
  let trailing = 0;
  for (let k = tokens.length - 1; k >= 0 && tokens[k] === ';'; k--) trailing++;
  if (trailing > 1) throw new Error('You can only execute one statement at a time.');
  if (tokens.every((t) => t === ';')) return;
  // The build runs in Verdict's own process, not the sandbox: dataset SQL must not reach the host's
  // files. ATTACH and VACUUM INTO would (for AWM, files beside its database); neither can put rows
  // in the database built, so refusing them changes no environment but one that copies rows from
  // an attached file.
  const first = (tokens[0] ?? '').toLowerCase();
  if (first === 'attach' || (first === 'vacuum' && tokens.some((t) => t.toLowerCase() === 'into'))) throw new Error(`${first.toUpperCase()} is not run by Verdict's environment build`);
  const dml = /^(insert|update|delete|replace)/i.test(tokens[0] ?? '');
  let text = sql;
  for (let tries = 0; ; tries++) {
    try {
      const statement = db.prepare(text);
      if (!db.inTransaction && dml) db.exec('BEGIN');
      if (statement.reader) statement.get();
      else statement.run();
      return;
    } catch (error) {
      // better-sqlite3's SQLite is built without double-quoted string literals (SQLITE_DQS=0); the
      // SQLite of AWM's Python reads a "word" that names no column as the string 'word', in schema
      // (CHECK (status IN ("open", "done"))) and data alike. SQLite names the word it could not
      // resolve: it becomes a literal and the statement runs again, as SQLite's fallback would.
      const word = DQS_WORD.exec((error as Error).message)?.[1];
      const next = word === undefined || tries >= 64 ? text : asLiteral(text, word);
      if (next === text) throw error;
      text = next;
    }
  }
}

const DQS_WORD = /^no such column: "(.*)" - should this be a string literal in single-quotes\?$/s;

/** `sql` with every double-quoted `"word"` (outside literals and comments) written as the literal 'word'. */
function asLiteral(sql: string, word: string): string {
  const quoted = `"${word.replaceAll('"', '""')}"`;
  const literal = `'${word.replaceAll("'", "''")}'`;
  return sqlPieces(sql)
    .map((p) => (p.kind === 'quoted' && p.text === quoted ? literal : p.text))
    .join('');
}

/**
 * The statement's tokens that matter here: `;` and every other run of SQL up to a blank, a quote or a
 * comment; a string literal or quoted name is its opening quote; comments are left out.
 */
function sqlTokens(sql: string): string[] {
  const out: string[] = [];
  for (const p of sqlPieces(sql)) {
    if (p.kind === 'quoted') out.push(p.text[0]!);
    else if (p.kind === 'plain') out.push(...p.text.split(/(;)|\s+/).filter((t): t is string => t !== undefined && t !== ''));
  }
  return out;
}

/**
 * SQL cut into string literals and quoted names (a doubled quote inside is the quote itself;
 * `[name]` has no escape), comments, and the plain runs between them; an unclosed one runs to the
 * end. The pieces joined are the statement.
 */
function sqlPieces(sql: string): Array<{ kind: 'quoted' | 'comment' | 'plain'; text: string }> {
  const out: Array<{ kind: 'quoted' | 'comment' | 'plain'; text: string }> = [];
  let k = 0;
  while (k < sql.length) {
    const c = sql[k]!;
    let end: number;
    let kind: 'quoted' | 'comment' | 'plain';
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      end = sql.indexOf(close, k + 1);
      while (end >= 0 && close !== ']' && sql[end + 1] === close) end = sql.indexOf(close, end + 2);
      end = end < 0 ? sql.length : end + 1;
      kind = 'quoted';
    } else if (c === '-' && sql[k + 1] === '-') {
      end = sql.indexOf('\n', k);
      end = end < 0 ? sql.length : end;
      kind = 'comment';
    } else if (c === '/' && sql[k + 1] === '*') {
      end = sql.indexOf('*/', k + 2);
      end = end < 0 ? sql.length : end + 2;
      kind = 'comment';
    } else {
      const next = sql.slice(k).search(/['"`[]|--|\/\*/);
      end = next < 0 ? sql.length : k + Math.max(next, 1);
      kind = 'plain';
    }
    out.push({ kind, text: sql.slice(k, end) });
    k = end;
  }
  return out;
}

/** Where each date/time function takes its time value: strftime's first argument is the format. */
const TIME_FUNCTIONS: Record<string, number> = { date: 0, time: 0, datetime: 0, julianday: 0, unixepoch: 0, strftime: 1 };

/**
 * SQLite's own date/time functions, with "now" (given, or implied by no time value) read as the
 * reference time and the `localtime`/`utc` modifiers as no-ops: each call is answered by SQLite on a
 * second connection that has no overrides, so every other modifier means exactly what it means.
 */
function fixClock(db: Database.Database, clock: Database.Database, referenceTime: string): void {
  for (const [name, at] of Object.entries(TIME_FUNCTIONS)) {
    const statements = new Map<number, Database.Statement>();
    db.function(name, { varargs: true, deterministic: true }, (...args: unknown[]) => {
      const values = [...args];
      if (values.length <= at) values.push(referenceTime);
      else if (typeof values[at] === 'string' && (values[at] as string).toLowerCase() === 'now') values[at] = referenceTime;
      for (let k = at + 1; k < values.length; k++) {
        const modifier = typeof values[k] === 'string' ? (values[k] as string).toLowerCase() : '';
        if (modifier === 'localtime' || modifier === 'utc') values[k] = '+0 seconds';
      }
      let statement = statements.get(values.length);
      if (!statement) statements.set(values.length, (statement = clock.prepare(`SELECT ${name}(${values.map(() => '?').join(', ')})`).pluck()));
      return statement.get(...values.map((v) => (typeof v === 'bigint' ? Number(v) : v))) as string | number | null;
    });
  }
}

const CURRENT = /\bCURRENT_(TIMESTAMP|DATE|TIME)\b/gi;
const AS_FUNCTION: Record<string, string> = { timestamp: "(datetime('now'))", date: "(date('now'))", time: "(time('now'))" };

/**
 * CURRENT_TIMESTAMP, CURRENT_DATE and CURRENT_TIME are keywords, not functions, so the clock above
 * cannot reach them: outside string literals, quoted names and comments they are written as the
 * functions they equal (a DDL default becomes `DEFAULT (datetime('now'))`, which SQLite evaluates
 * per row exactly like the keyword).
 */
export function withClock(sql: string): string {
  if (!/CURRENT_/i.test(sql)) return sql;
  return sqlPieces(sql)
    .map((p) => (p.kind === 'plain' ? p.text.replace(CURRENT, (_, which: string) => AS_FUNCTION[which.toLowerCase()]!) : p.text))
    .join('');
}
