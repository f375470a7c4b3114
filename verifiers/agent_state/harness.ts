/**
 * The Python that runs the verification in the sandbox, appended after the task's own code (so its
 * names win). Verdict's code, not the dataset's: it turns the states into read-only database files
 * in the run's working directory, checks them, and only then calls the task's function. Whatever
 * goes wrong before that call is the state's fault and comes back tagged `state`; an exception of
 * the task's function itself propagates (the sandbox reports it as raised).
 */
export const STATE_ENTRY = '__verdict_agent_state__';

export const HARNESS = String.raw`

import base64 as _verdict_b64
import os as _verdict_os
import sqlite3 as _verdict_sqlite3


def _verdict_tables(path):
    con = _verdict_sqlite3.connect('file:%s?mode=ro' % path, uri=True)
    try:
        check = con.execute('PRAGMA integrity_check').fetchall()
        if check != [('ok',)]:
            raise ValueError('integrity_check: ' + '; '.join(str(r[0]) for r in check[:5]))
        tables = {}
        for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall():
            tables[name] = [row[1] for row in con.execute('PRAGMA table_info("%s")' % name.replace('"', '""')).fetchall()]
        return tables
    finally:
        con.close()


def _verdict_materialize(state, name):
    path = _verdict_os.path.join(_verdict_os.getcwd(), name)
    if 'sqlite' in state:
        with open(path, 'wb') as out:
            out.write(_verdict_b64.b64decode(state['sqlite']))
    else:
        con = _verdict_sqlite3.connect(path)
        try:
            con.executescript(state['sql'])
            con.commit()
        finally:
            con.close()
    tables = _verdict_tables(path)
    _verdict_os.chmod(path, 0o444)
    return path, tables


def ${STATE_ENTRY}(entry, initial, final, params):
    fn = globals().get(entry)
    if not callable(fn):
        return {'verdict': 'missing_entry'}
    initial_path = None
    initial_tables = None
    if initial is not None:
        try:
            initial_path, initial_tables = _verdict_materialize(initial, 'initial.db')
        except Exception as exc:
            return {'verdict': 'initial_state', 'error': '%s: %s' % (type(exc).__name__, exc)}
    try:
        final_path, final_tables = _verdict_materialize(final, 'final.db')
    except Exception as exc:
        return {'verdict': 'state', 'error': '%s: %s' % (type(exc).__name__, exc)}
    if not final_tables:
        return {'verdict': 'state', 'error': 'the database has no tables'}
    if initial_tables is not None:
        changed = sorted(t for t, cols in initial_tables.items() if final_tables.get(t) != cols)
        if changed:
            return {'verdict': 'schema', 'tables': changed[:20]}
    result = fn(initial_path, final_path, params)
    return {'verdict': 'returned', 'value': result}
`;
