import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';

/** JSON text with object keys sorted, so equal values always hash alike. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

/** The cache key of one judge request: sha256 over everything that can change the reply. */
export function cacheKey(parts: { model: string; messages: unknown; schema: unknown; sampling: unknown }): string {
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

/**
 * Judge replies that passed schema validation, persisted in SQLite: re-scoring a trajectory never
 * pays for the judge twice and always gets the verdict it got the first time (the first stored
 * reply wins; later ones for the same key are ignored). Shared by all endpoints; the key holds the model.
 */
export class JudgeCache {
  private readonly db: Database.Database;
  private readonly selectStmt: Database.Statement<[string], { reply: string }>;
  private readonly insertStmt: Database.Statement<[string, string, string, number]>;

  /** `path` is a file, or ":memory:" for a cache that lasts as long as the process. */
  constructor(readonly path: string) {
    // The native addon is loaded with the first cache opened, not by every run that imports the judge.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    this.db = new (require('better-sqlite3') as typeof Database)(path);
    this.db.pragma('journal_mode = WAL');
    // A crash may lose the last replies, which are then asked again; it cannot corrupt the file.
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS judge_replies (
         key TEXT PRIMARY KEY,
         model TEXT NOT NULL,
         reply TEXT NOT NULL,
         created_ms INTEGER NOT NULL
       ) WITHOUT ROWID`,
    );
    this.selectStmt = this.db.prepare('SELECT reply FROM judge_replies WHERE key = ?');
    this.insertStmt = this.db.prepare(
      'INSERT OR IGNORE INTO judge_replies (key, model, reply, created_ms) VALUES (?, ?, ?, ?)',
    );
  }

  get(key: string): unknown {
    const row = this.selectStmt.get(key);
    return row === undefined ? undefined : (JSON.parse(row.reply) as unknown);
  }

  put(key: string, model: string, reply: unknown): void {
    this.insertStmt.run(key, model, JSON.stringify(reply), Date.now());
  }

  size(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM judge_replies').get() as { n: number }).n;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
