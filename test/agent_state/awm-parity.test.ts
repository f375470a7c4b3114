import Database from 'better-sqlite3';
import { stateAfter } from './states';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AgentTask } from '../../core/ports/agent-state';
import type { Outcome, Sample } from '../../core/sample';
import { scoreAsync } from '../../core/score';
import type { AsyncVerifier, Services } from '../../core/verifier';
import { agentStateConfigSection, agentStateService } from '../../services/agent-state';
import { awmEntry } from '../../services/agent-state/awm';
import { buildEnvironment, schemaReadsClock } from '../../services/agent-state/environment';
import type { Sandbox } from '../../services/sandbox';
import { agentState } from '../../verifiers/agent_state';
import { never, startSandbox } from '../sandbox/helpers';

/**
 * Red-team cases: release lines in AgentWorldModel's own layout on which Verdict once decided
 * otherwise than AWM's code (Snowflake-Labs/agent-world-model 91a9578: `awm/core/db.py`
 * create_sqlite_database, `awm/core/sample.py` execute_sample_data, `awm/core/verify.py`
 * execute_code_verifier, on Python 3.12's sqlite3). Every expected value below is what that code
 * gives (the build cases were run through a Python script doing those steps: same rows, same losses).
 */

type Line = Record<string, unknown>;

/** Writes one environment's three release files and returns a service reading them. */
function release(scenario: string, tables: Line[], seeds: Line[], verifiers: Array<{ task_idx: number; code: string }>) {
  const dir = mkdtempSync(path.join(tmpdir(), 'verdict-awm-parity-'));
  const files = { verifiers: path.join(dir, 'gen_verifier.pure_code.jsonl'), db: path.join(dir, 'gen_db.jsonl'), sample: path.join(dir, 'gen_sample.jsonl') };
  writeFileSync(files.db, JSON.stringify({ scenario, db_schema: { tables }, db_path: `./outputs/databases/${scenario}.db` }) + '\n');
  writeFileSync(files.sample, JSON.stringify({ scenario, tables_count: seeds.length, inserts_count: seeds.reduce((n, t) => n + (t.insert_statements as string[]).length, 0), sample_data: { tables: seeds } }) + '\n');
  writeFileSync(files.verifiers, verifiers.map(({ task_idx, code }) => JSON.stringify({ scenario, task_idx, task: `task ${task_idx}`, verification: { code, raw_response: '' } })).join('\n') + '\n');
  return files;
}

const rows = (sqlite: string, sql: string) => {
  const db = new Database(Buffer.from(sqlite, 'base64'));
  try {
    return db.prepare(sql).raw().all();
  } finally {
    db.close();
  }
};

const AT = '2026-01-01 00:00:00';

describe('an AgentWorldModel environment is built as AWM\'s reset builds it', () => {
  it('loses the rows whose CHECK constraint or generated column calls a clock function with "now", and keeps deterministic uses', () => {
    // SQLite refuses `now` where a value must be deterministic; AWM's reset skips those rows, so its
    // environment never held them. date(d2) and an index on date(a) are deterministic: kept.
    const built = buildEnvironment(
      {
        tables: [
          { name: 'tasks', ddl: "CREATE TABLE tasks (id INTEGER PRIMARY KEY, due TEXT CHECK (due <= datetime('now')), d2 TEXT CHECK (d2 IS NULL OR date(d2) = d2));" },
          { name: 'logs', ddl: 'CREATE TABLE logs (id INTEGER PRIMARY KEY, a TEXT, b TEXT AS (datetime(a)));', indexes: ['CREATE INDEX idx_logs_day ON logs(date(a));'] },
          { name: 'stamps', ddl: 'CREATE TABLE stamps (id INTEGER PRIMARY KEY, at TEXT CHECK (at <= CURRENT_TIMESTAMP));' },
        ],
      },
      {
        tables: [
          { table_name: 'tasks', insert_statements: ["INSERT INTO tasks VALUES (1, '2020-01-01', NULL);", "INSERT INTO tasks VALUES (2, NULL, '2020-01-01');"] },
          { table_name: 'logs', insert_statements: ["INSERT INTO logs (id, a) VALUES (1, 'now');", "INSERT INTO logs (id, a) VALUES (2, datetime('now', '-1 day'));"] },
          { table_name: 'stamps', insert_statements: ["INSERT INTO stamps VALUES (1, '2020-01-01');"] },
        ],
      },
      AT,
    );
    // Task 2's CHECK is not evaluated with "now" (due is NULL: datetime('now') is still called, but
    // NULL <= x is NULL, which a CHECK passes) — SQLite refuses the call itself, so it is lost too.
    expect(rows(built.sqlite, 'SELECT * FROM tasks')).toEqual([]);
    expect(rows(built.sqlite, 'SELECT * FROM logs')).toEqual([[2, '2025-12-31 00:00:00', '2025-12-31 00:00:00']]);
    // CURRENT_TIMESTAMP in a CHECK is allowed (SQLite reads the keyword per statement, not as a function call).
    expect(rows(built.sqlite, 'SELECT * FROM stamps')).toEqual([[1, '2020-01-01']]);
    expect(built.skipped).toEqual({ tables: 0, statements: 3 });
    expect(rows(built.sqlite, "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'idx_logs_day'")).toEqual([['idx_logs_day']]);
  });

  it('keeps a CHECK on CURRENT_TIMESTAMP allowed after the real clock and the reference time disagree on a row', () => {
    // Row 1 is after the reference time (refused here) and before the real clock (the shadow takes
    // it): the shadow must not then read the kept schema's rewritten CURRENT_TIMESTAMP as a refused
    // datetime('now') and lose row 2.
    const built = buildEnvironment(
      { tables: [{ name: 'notes', ddl: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, created_at TEXT CHECK (created_at <= CURRENT_TIMESTAMP), day TEXT CHECK (day IS NULL OR date(day) = day));' }] },
      { tables: [{ table_name: 'notes', insert_statements: ["INSERT INTO notes VALUES (1, '2026-06-01 00:00:00', NULL);", "INSERT INTO notes VALUES (2, '2025-06-01 00:00:00', '2025-06-01');"] }] },
      AT,
    );
    expect(rows(built.sqlite, 'SELECT id FROM notes')).toEqual([[2]]);
  });

  it('runs the shadow only for a schema that can read the clock outside a DEFAULT CURRENT_*', () => {
    const ddl = (...tables: string[]) => ({ tables: tables.map((ddl) => ({ ddl })) });
    expect(schemaReadsClock(ddl('CREATE TABLE a (x TEXT DEFAULT CURRENT_TIMESTAMP, y TEXT default  current_date);'))).toBe(false);
    expect(schemaReadsClock(ddl('CREATE TABLE a (x TEXT);', "CREATE TABLE b (due TEXT CHECK (due <= DateTime ('now')));"))).toBe(true);
    expect(schemaReadsClock(ddl('CREATE TABLE a (x TEXT, y TEXT AS (CURRENT_DATE));'))).toBe(true);
    expect(schemaReadsClock({ tables: [{ ddl: 'CREATE TABLE a (x TEXT);', indexes: ["CREATE INDEX i ON a(x) WHERE x > date('now');"] }] })).toBe(true);
  });

  it('runs each statement as Python\'s sqlite3 does: a second ";" refused, an empty one nothing, a seed\'s own BEGIN/COMMIT and PRAGMA acting', () => {
    const built = buildEnvironment(
      {
        tables: [
          { name: 'parents', ddl: 'CREATE TABLE parents (id INTEGER PRIMARY KEY);', indexes: [''] },
          { name: 'kids', ddl: 'CREATE TABLE kids (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parents(id));', indexes: ['CREATE INDEX idx_kids_parent ON kids(parent_id);;', 'CREATE INDEX idx_kids_never ON kids(id);'] },
        ],
      },
      {
        tables: [
          {
            table_name: 'parents',
            // AWM runs "BEGIN" and "COMMIT" as written; Verdict's own transaction once turned the
            // seed's COMMIT into the end of its build ("cannot commit - no transaction is active").
            insert_statements: ['BEGIN TRANSACTION;', 'INSERT INTO parents VALUES (1);', 'COMMIT;', 'INSERT INTO parents VALUES (2);;', '', '-- no parent 3'],
          },
          // foreign_keys = OFF before any write: it acts (no transaction is open), so kid 2 stays.
          { table_name: 'kids', insert_statements: ['PRAGMA foreign_keys = OFF;', 'INSERT INTO kids VALUES (1, 1);', 'INSERT INTO kids VALUES (2, 99);'] },
        ],
      },
      AT,
    );
    expect(rows(built.sqlite, 'SELECT id FROM parents')).toEqual([[1]]);
    expect(rows(built.sqlite, 'SELECT * FROM kids ORDER BY id')).toEqual([[1, 1], [2, 99]]);
    // The index with ";;" fails, so the table's later index is never made; the empty index is nothing.
    expect(rows(built.sqlite, "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name")).toEqual([]);
    expect(built.skipped).toEqual({ tables: 1, statements: 1 });
  });

  it('reads "now" and the localtime/utc modifiers exactly as SQLite does: with blanks around them they are no time (NULL)', () => {
    const built = buildEnvironment(
      { tables: [{ name: 't', ddl: 'CREATE TABLE t (a TEXT, b TEXT, c TEXT, d TEXT);' }] },
      { tables: [{ table_name: 't', insert_statements: ["INSERT INTO t VALUES (datetime(' now'), datetime('NOW', '-1 day'), datetime('now', 'LocalTime'), datetime('now', ' utc '));"] }] },
      AT,
    );
    expect(rows(built.sqlite, 'SELECT * FROM t')).toEqual([[null, '2025-12-31 00:00:00', AT, null]]);
  });

  it('refuses ATTACH and VACUUM INTO in release SQL: the build runs outside the sandbox and must not write the host\'s files', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'verdict-awm-parity-'));
    const target = path.join(dir, 'leak.db').replace(/'/g, "''");
    const built = buildEnvironment(
      { tables: [{ name: 'items', ddl: 'CREATE TABLE items (id INTEGER PRIMARY KEY);' }] },
      { tables: [{ table_name: 'items', insert_statements: [`VACUUM INTO '${target}';`, `ATTACH DATABASE '${target}' AS leak;`, 'INSERT INTO items VALUES (1);', 'INSERT INTO items VALUES (2);'] }] },
      AT,
    );
    // Both come before the first write, where no transaction would have stopped them.
    expect(rows(built.sqlite, 'SELECT id FROM items')).toEqual([[1], [2]]);
    expect(built.skipped).toEqual({ tables: 0, statements: 2 });
    expect(() => readFileSync(path.join(dir, 'leak.db'))).toThrow(/ENOENT/);
  });

  it('reads a double-quoted word that names no column as a string, as the SQLite of AWM\'s Python does (in CHECKs and seed rows)', () => {
    const built = buildEnvironment(
      {
        tables: [
          { name: 'tickets', ddl: 'CREATE TABLE tickets (id INTEGER PRIMARY KEY, status TEXT NOT NULL CHECK (status IN ("open", "done")), note TEXT);', indexes: ['CREATE INDEX idx_open ON tickets(id) WHERE status = "open";'] },
          { name: 'tags', ddl: 'CREATE TABLE tags (name TEXT);' },
        ],
      },
      {
        tables: [
          { table_name: 'tickets', insert_statements: ['INSERT INTO tickets VALUES (1, "open", "it""s");', 'INSERT INTO tickets VALUES (2, "lost", NULL);', "INSERT INTO tickets VALUES (3, 'done', '\"x\"');"] },
          // "name" is a column here: SQLite reads it as one, so the copy copies the row.
          { table_name: 'tags', insert_statements: ['INSERT INTO tags VALUES ("name");', 'INSERT INTO tags SELECT "name" || "!" FROM tags;'] },
        ],
      },
      AT,
    );
    expect(rows(built.sqlite, 'SELECT * FROM tickets ORDER BY id')).toEqual([[1, 'open', 'it"s'], [3, 'done', '"x"']]);
    expect(rows(built.sqlite, 'SELECT name FROM tags ORDER BY rowid')).toEqual([['name'], ['name!']]);
    expect(rows(built.sqlite, "SELECT name FROM sqlite_master WHERE type = 'index'")).toEqual([['idx_open']]);
    expect(built.skipped).toEqual({ tables: 0, statements: 1 });
  });

  it('writes a table\'s `examples` with foreign keys off, as AWM\'s schema step does (its connection is Python\'s default)', () => {
    const built = buildEnvironment(
      {
        tables: [
          { name: 'owners', ddl: 'CREATE TABLE owners (id INTEGER PRIMARY KEY);' },
          { name: 'pets', ddl: 'CREATE TABLE pets (id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL REFERENCES owners(id));', examples: ['INSERT INTO pets VALUES (1, 42);'] },
        ],
      },
      // The seed step turns them on: a dangling pet there is refused.
      { tables: [{ table_name: 'pets', insert_statements: ['INSERT INTO pets VALUES (2, 43);'] }] },
      AT,
    );
    expect(rows(built.sqlite, 'SELECT * FROM pets')).toEqual([[1, 42]]);
    expect(built.skipped).toEqual({ tables: 0, statements: 1 });
  });

  it('loses every seed row when the final commit fails on a deferred foreign key, as AWM rolls back', () => {
    const built = buildEnvironment(
      {
        tables: [
          { name: 'parents', ddl: 'CREATE TABLE parents (id INTEGER PRIMARY KEY);' },
          { name: 'kids', ddl: 'CREATE TABLE kids (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parents(id) DEFERRABLE INITIALLY DEFERRED);' },
        ],
      },
      { tables: [{ table_name: 'parents', insert_statements: ['INSERT INTO parents VALUES (1);'] }, { table_name: 'kids', insert_statements: ['INSERT INTO kids VALUES (1, 7);'] }] },
      AT,
    );
    expect(rows(built.sqlite, 'SELECT count(*) FROM parents')).toEqual([[0]]);
    expect(rows(built.sqlite, 'SELECT count(*) FROM kids')).toEqual([[0]]);
    expect(built.tables).toBe(2);
  });

  it('starts on release lines AWM reads: an empty index and a table without ddl (that table fails, the rest is built)', async () => {
    const files = release('Odd Shop', [{ name: 'ghost' }, { name: 'items', ddl: 'CREATE TABLE items (id INTEGER PRIMARY KEY);', indexes: [''] }], [{ table_name: 'items', insert_statements: ['INSERT INTO items VALUES (1);'] }], [
      { task_idx: 0, code: 'def verify_task_completion(initial_db_path, final_db_path, final_answer=None):\n    return {"result": "others"}\n' },
    ]);
    const service = agentStateService(agentStateConfigSection.parse({ tasks: [{ awm: files }] }));
    const found = (await service.task('odd_shop.0')) as { kind: string; task: AgentTask };
    expect(found.kind).toBe('found');
    expect(rows(found.task.initialState!.sqlite, 'SELECT id FROM items')).toEqual([[1]]);
  });
});

describe('the function AWM\'s runner calls', () => {
  it('is its name with every "def " taken out, as run_verifier takes them out', () => {
    // `line.split("(")[0].replace("def ", "")`: Python's replace takes out every occurrence.
    expect(awmEntry('def verify_undef (a, b):\n    return {"result": "complete"}\n')).toBe('verify_un');
    expect(awmEntry('import re\n  def verify_row(r):\n    pass\ndef verify_task_completion(a, b):\n    pass\n')).toBe('verify_row');
  });
});

describe('agent_state reads a release task\'s return value as AWM\'s code-mode runner does (real sandbox)', () => {
  let sandbox: Sandbox;
  let services: Services;
  let initial: string;
  const fn = (body: string) => `def verify_task_completion(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:\n    import sqlite3\n${body}\n`;
  beforeAll(async () => {
    sandbox = await startSandbox({ limits: { cpuMs: 2000, memoryMb: 512 } });
    const files = release(
      'todo_app_9',
      [
        { name: 'todos', ddl: "CREATE TABLE todos (id INTEGER PRIMARY KEY, title TEXT NOT NULL, due TEXT CHECK (due <= datetime('now')), done INTEGER NOT NULL DEFAULT 0);" },
        { name: 'lists', ddl: 'CREATE TABLE lists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_at TEXT DEFAULT CURRENT_TIMESTAMP);' },
        { name: 'list_names', ddl: "CREATE VIEW list_names AS SELECT name, CURRENT_DATE AS today FROM lists WHERE name != \"\";" },
      ],
      [
        { table_name: 'todos', insert_statements: ["INSERT INTO todos (id, title, due) VALUES (1, 'File taxes', datetime('now', '-2 days'));"] },
        { table_name: 'lists', insert_statements: ["INSERT INTO lists (id, name) VALUES (1, 'Home');"] },
      ],
      [
        // A bool: AWM's "Invalid return format" (a judge error), never a 1.
        { task_idx: 0, code: fn('    return True') },
        // Any "result" but exactly "complete" is "others": a 0, not the dataset's defect.
        { task_idx: 1, code: fn('    return {"result": "incomplete"}') },
        { task_idx: 2, code: fn('    return {"result": True}') },
        { task_idx: 3, code: fn('    return {"passed": True}') },
        // AWM's environment never held todo 1 (its CHECK calls datetime('now')), and its server
        // cannot add it either: "mark my overdue todo done" is one no episode completes.
        { task_idx: 4, code: fn('    conn = sqlite3.connect(f"file:{initial_db_path}?mode=ro", uri=True)\n    before = conn.execute("SELECT count(*) FROM todos WHERE title = \'File taxes\' AND done = 0").fetchone()[0]\n    conn.close()\n    conn = sqlite3.connect(f"file:{final_db_path}?mode=ro", uri=True)\n    after = conn.execute("SELECT count(*) FROM todos WHERE title = \'File taxes\' AND done = 1").fetchone()[0]\n    conn.close()\n    return {"result": "complete" if before == 1 and after == 1 else "others"}') },
        { task_idx: 5, code: fn('    return {"result": "Complete"}') },
        // AWM's runner ignores what a verification prints: debugging output is no verdict.
        { task_idx: 7, code: fn('    for k in range(40000):\n        print("checked row", k, "x" * 40)\n    return {"result": "complete"}') },
        // The modules AWM's exec namespace holds (json, os, re, sqlite3) need no import; the standard
        // library imports as usual; `datetime` is not in that namespace: a NameError, AWM's judge error.
        { task_idx: 8, code: fn('    import collections, decimal, math, statistics, typing\n    from datetime import datetime, timedelta\n    ok = json.dumps(collections.Counter("aab")) == \'{"a": 2, "b": 1}\' and re.match("x", "x") and os.path.basename(final_db_path)\n    ok = ok and math.isclose(statistics.mean([1, 2]), float(decimal.Decimal("1.5"))) and datetime(2026, 1, 1) - timedelta(days=1) < datetime(2026, 1, 1)\n    return {"result": "complete" if ok else "others"}') },
        { task_idx: 9, code: fn('    return {"result": "complete" if datetime.now() else "others"}') },
        // Reads a view: a final state that redefines it to answer "Taxes" is reshaped, not complete.
        { task_idx: 6, code: fn('    conn = sqlite3.connect(f"file:{final_db_path}?mode=ro", uri=True)\n    names = [r[0] for r in conn.execute("SELECT name FROM list_names")]\n    conn.close()\n    return {"result": "complete" if "Taxes" in names else "others"}') },
      ],
    );
    services = { sandbox, agentState: agentStateService(agentStateConfigSection.parse({ tasks: [{ awm: files }], cpuMs: 1500 })) };
    initial = ((await services.agentState!.task('todo_app_9.0')) as { task: AgentTask }).task.initialState!.sqlite;
  });
  afterAll(() => sandbox.close());

  const after = (change: string) => stateAfter(initial, change);
  const score = (task: number, change = ''): Promise<Outcome> => {
    const sample: Sample = { id: 's', verifier: 'agent_state', response: 'Done.', label: { taskId: `todo_app_9.${task}` }, groupId: '', responseTokens: 0, metadata: { finalState: after(change) } };
    return scoreAsync(agentState as AsyncVerifier, sample, { signal: never, services, compute: async () => null });
  };

  it('takes only a dict with "result": a bool or {"passed"} is INVALID, every result but "complete" a 0', async () => {
    expect(await score(0)).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^task todo_app_9\.0: the verification returned true, not a dict with "result"/) });
    expect(await score(3)).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^task todo_app_9\.3: .*not a dict with "result"/) });
    expect(await score(1)).toMatchObject({ status: 'OK', reward: 0, reason: 'failed', details: { why: 'incomplete' } });
    expect(await score(2)).toMatchObject({ status: 'OK', reward: 0, reason: 'failed', details: { why: 'True' } });
    expect(await score(5)).toMatchObject({ status: 'OK', reward: 0, reason: 'failed', details: { why: 'Complete' } });
  });

  it('verifies against the environment AWM served: the seed row its CHECK refused is not there', async () => {
    expect(rows(initial, 'SELECT count(*) FROM todos')).toEqual([[0]]);
    expect(rows(initial, 'SELECT id, name FROM lists')).toEqual([[1, 'Home']]);
    expect(await score(4, "UPDATE todos SET done = 1 WHERE title = 'File taxes';")).toMatchObject({ status: 'OK', reward: 0, details: { why: 'others' } });
  });

  it('runs the verification in AWM\'s namespace: json, os, re and sqlite3 without import, datetime only imported', async () => {
    expect(await score(8)).toMatchObject({ status: 'OK', reward: 1, details: { why: 'complete' } });
    expect(await score(9)).toMatchObject({ status: 'INVALID', reason: expect.stringMatching(/^task todo_app_9\.9: the verification raised on a well-formed state: .*NameError: name 'datetime' is not defined/) });
  });

  it('reads a final state in WAL mode, as an environment\'s server may leave it (AWM copies final.db after the server exits)', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'verdict-awm-parity-')), 'final.db');
    writeFileSync(file, Buffer.from(initial, 'base64'));
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec("INSERT INTO lists (name) VALUES ('Taxes');");
    db.close();
    const bytes = readFileSync(file);
    expect([bytes[18], bytes[19]]).toEqual([2, 2]);
    const sample: Sample = { id: 's', verifier: 'agent_state', response: 'Done.', label: { taskId: 'todo_app_9.6' }, groupId: '', responseTokens: 0, metadata: { finalState: { sqlite: bytes.toString('base64') } } };
    expect(await scoreAsync(agentState as AsyncVerifier, sample, { signal: never, services, compute: async () => null })).toMatchObject({ status: 'OK', reward: 1, details: { why: 'complete' } });
  });

  it('ignores what the verification prints (2 MB here), as AWM\'s runner does', async () => {
    expect(await score(7)).toMatchObject({ status: 'OK', reward: 1, details: { why: 'complete' } });
  });

  // The lie keeps the view's columns and their declared types (the first SELECT of a compound gives them).
  it('gives 0 for a view redefined to lie (AWM\'s runner would read it and say complete), and 1 for the real change', async () => {
    expect(await score(6, "INSERT INTO lists (name) VALUES ('Taxes');")).toMatchObject({ status: 'OK', reward: 1, details: { why: 'complete' } });
    expect(await score(6, "DROP VIEW list_names; CREATE VIEW list_names AS SELECT name, CURRENT_DATE AS today FROM lists WHERE name != \"\" UNION ALL SELECT 'Taxes', CURRENT_DATE;")).toMatchObject({ status: 'OK', reward: 0, reason: 'schema_changed', details: { tables: ['list_names'] } });
    // The same definition written again, as AWM's environment holds it (CURRENT_DATE the keyword, "" a
    // double-quoted string, both rewritten in the built schema), is no change.
    expect(await score(6, "DROP VIEW list_names; CREATE VIEW list_names AS SELECT name, CURRENT_DATE AS today FROM lists WHERE name != \"\"; INSERT INTO lists (name) VALUES ('Taxes');")).toMatchObject({ status: 'OK', reward: 1 });
  });
});
