import Database from 'better-sqlite3';

/**
 * An environment's initial database (base64 SQLite) after `change`, as `metadata.finalState`: the
 * state an episode leaves. Foreign keys as better-sqlite3 opens a database (on) unless told off.
 */
export function stateAfter(initial: string, change: string, options: { foreignKeys?: boolean } = {}): { sqlite: string } {
  const db = new Database(Buffer.from(initial, 'base64'));
  try {
    if (options.foreignKeys === false) db.pragma('foreign_keys = OFF');
    db.exec(change);
    return { sqlite: db.serialize().toString('base64') };
  } finally {
    db.close();
  }
}
