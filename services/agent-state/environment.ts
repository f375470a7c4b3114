import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';


/** better-sqlite3 (a native addon), loaded when the first environment is built, not by every run that imports the services. */
function sqlite(): typeof Database {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('better-sqlite3') as typeof Database;
}

/**
 * An AgentWorldModel environment's initial database, built as its `reset_db` builds it: each table's
 * DDL, then its indexes (and `examples`), a table whose statements fail skipped whole; then the seed
 * data's INSERTs one by one with foreign keys on, a failing one skipped. Skipping is AWM's own
 * behaviour, so the database is the one its environment served the agent.
 *
 * The clock: AWM's seed data writes `datetime('now', '-3 days')` and its DDL `DEFAULT
 * CURRENT_TIMESTAMP`. Here "now" is a fixed reference time (`agentState.referenceTime`, UTC, and
 * local time is UTC), so one environment gives the same bytes — and one sample the same reward — on
 * every run and every replica.
 */
export interface AwmSchema {
  tables: Array<{ name?: string; ddl: string; indexes?: string[]; examples?: string[] }>;
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
const BUILD_VERSION = 'awm-env-1';

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

function build(schema: AwmSchema, seed: AwmSeed, referenceTime: string, key: string): BuiltEnvironment {
  const Database = sqlite();
  const db = new Database(':memory:');
  const clock = new Database(':memory:');
  try {
    fixClock(db, clock, referenceTime);
    const skipped = { tables: 0, statements: 0 };
    // AWM creates tables with Python's default (foreign keys off) and seeds with them on.
    db.pragma('foreign_keys = OFF');
    for (const table of schema.tables) {
      try {
        for (const sql of [table.ddl, ...(table.indexes ?? []), ...(table.examples ?? [])]) db.prepare(withClock(sql)).run();
      } catch {
        skipped.tables++;
      }
    }
    db.pragma('foreign_keys = ON');
    db.exec('BEGIN');
    for (const table of seed.tables) {
      for (const sql of table.insert_statements ?? []) {
        try {
          db.prepare(withClock(sql)).run();
        } catch {
          skipped.statements++;
        }
      }
    }
    db.exec('COMMIT');
    const tables = (db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'").pluck().get() as number) ?? 0;
    return { sqlite: db.serialize().toString('base64'), key, tables, skipped };
  } finally {
    db.close();
    clock.close();
  }
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
      else if (typeof values[at] === 'string' && (values[at] as string).trim().toLowerCase() === 'now') values[at] = referenceTime;
      for (let k = at + 1; k < values.length; k++) {
        const modifier = typeof values[k] === 'string' ? (values[k] as string).trim().toLowerCase() : '';
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
  let out = '';
  let k = 0;
  while (k < sql.length) {
    const c = sql[k]!;
    let end = k + 1;
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      end = sql.indexOf(close, k + 1);
      // A doubled quote inside a literal is the quote itself.
      while (end >= 0 && close !== ']' && sql[end + 1] === close) end = sql.indexOf(close, end + 2);
      end = end < 0 ? sql.length : end + 1;
      out += sql.slice(k, end);
    } else if (c === '-' && sql[k + 1] === '-') {
      end = sql.indexOf('\n', k);
      end = end < 0 ? sql.length : end;
      out += sql.slice(k, end);
    } else if (c === '/' && sql[k + 1] === '*') {
      end = sql.indexOf('*/', k + 2);
      end = end < 0 ? sql.length : end + 2;
      out += sql.slice(k, end);
    } else {
      // Plain SQL up to the next quote or comment.
      const next = sql.slice(k).search(/['"`[]|--|\/\*/);
      end = next < 0 ? sql.length : k + Math.max(next, 1);
      out += sql.slice(k, end).replace(CURRENT, (_, which: string) => AS_FUNCTION[which.toLowerCase()]!);
    }
    k = end;
  }
  return out;
}
