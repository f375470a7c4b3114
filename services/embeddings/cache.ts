import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';

/** The cache key of one text: SHA-256 of the text as sent (the model is the other half of the key). */
export const textKey = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Embedding vectors persisted in SQLite, keyed by model and text: a re-run, a run killed half way,
 * or a second benchmark against the same training data asks the endpoint only for texts it has
 * never embedded with that model. Vectors are stored as little-endian float32 blobs. The first
 * stored vector of a key wins, as in the judge's cache, so a run always sees one vector per text.
 */
export class EmbeddingCache {
  private readonly db: Database.Database;
  private readonly selectStmt: Database.Statement<[string, string], { vector: Buffer }>;
  private readonly insertStmt: Database.Statement<[string, string, number, Buffer, number]>;

  /** `file` is a path (parent folders are created) or ":memory:". */
  constructor(readonly file: string) {
    if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    // The native addon is loaded with the first cache opened, not by every command that imports curate's.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    this.db = new (require('better-sqlite3') as typeof Database)(file);
    this.db.pragma('journal_mode = WAL');
    // A killed process loses nothing committed; a machine crash may lose the last batches, asked again.
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS embeddings (
         model TEXT NOT NULL,
         key TEXT NOT NULL,
         dims INTEGER NOT NULL,
         vector BLOB NOT NULL,
         created_ms INTEGER NOT NULL,
         PRIMARY KEY (model, key)
       ) WITHOUT ROWID`,
    );
    this.selectStmt = this.db.prepare('SELECT vector FROM embeddings WHERE model = ? AND key = ?');
    this.insertStmt = this.db.prepare('INSERT OR IGNORE INTO embeddings (model, key, dims, vector, created_ms) VALUES (?, ?, ?, ?, ?)');
  }

  get(model: string, key: string): Float32Array | undefined {
    const row = this.selectStmt.get(model, key);
    if (row === undefined) return undefined;
    // A copy: the Buffer may share a pool and need not be 4-byte aligned.
    const out = new Float32Array(row.vector.byteLength / 4);
    for (let i = 0; i < out.length; i++) out[i] = row.vector.readFloatLE(i * 4);
    return out;
  }

  /** Stores one batch in one transaction: a batch is in the cache whole or not at all. */
  putMany(model: string, entries: ReadonlyArray<{ key: string; vector: Float32Array }>): void {
    const now = Date.now();
    this.db.transaction(() => {
      for (const { key, vector } of entries) {
        const blob = Buffer.alloc(vector.length * 4);
        for (let i = 0; i < vector.length; i++) blob.writeFloatLE(vector[i]!, i * 4);
        this.insertStmt.run(model, key, vector.length, blob, now);
      }
    })();
  }

  size(model?: string): number {
    const row = model === undefined ? this.db.prepare('SELECT COUNT(*) AS n FROM embeddings').get() : this.db.prepare('SELECT COUNT(*) AS n FROM embeddings WHERE model = ?').get(model);
    return (row as { n: number }).n;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
