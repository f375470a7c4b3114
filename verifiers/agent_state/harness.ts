/**
 * The Python that runs the verification in the sandbox: Verdict's code, not the dataset's. The task's
 * code comes as an argument and is compiled and run on its own, in a namespace holding the modules
 * AgentWorldModel's runner puts there (json, os, re, sqlite3), as that runner execs it — so the code
 * is exactly the file it wrote (a `from __future__` import stays its first line, tracebacks keep its
 * line numbers). The harness turns the states into read-only database files in the run's working
 * directory, checks them, picks the calling convention from the function's signature, and only then
 * calls the task's function. Whatever goes wrong before that call is the state's fault and comes back
 * tagged `state`; code that does not load comes back `load_error`; an exception of the task's
 * function itself propagates (the sandbox reports it as raised).
 */
export const STATE_ENTRY = '__verdict_agent_state__';

export const HARNESS = String.raw`

import base64 as _verdict_b64
import builtins as _verdict_builtins
import datetime as _verdict_datetime
import inspect as _verdict_inspect
import json as _verdict_json
import os as _verdict_os
import re as _verdict_re
import sqlite3 as _verdict_sqlite3
import time as _verdict_time

# The harness's own connections: never the clock-fixed one the task's code is given.
_verdict_connect = _verdict_sqlite3.connect

_VERDICT_AWM_NAMES = ('initial_db_path', 'final_db_path', 'final_answer')


def _verdict_shape(path, check):
    # Everything a task's SQL can depend on, per table or view: what it is (table, view, virtual),
    # WITHOUT ROWID, STRICT, and every column with table_xinfo (table_info hides generated columns).
    con = _verdict_connect('file:%s?mode=ro' % path, uri=True)
    try:
        if check:
            rows = con.execute('PRAGMA integrity_check').fetchall()
            if rows != [('ok',)]:
                raise ValueError('integrity_check: ' + '; '.join(str(r[0]) for r in rows[:5]))
        shape = {}
        listed = con.execute("SELECT name, type, wr, strict FROM pragma_table_list WHERE schema = 'main' AND substr(name, 1, 7) != 'sqlite_' ORDER BY name").fetchall()
        for name, kind, wr, strict in listed:
            columns = [[r[1], r[2], r[3], r[5], r[6]] for r in con.execute('PRAGMA table_xinfo("%s")' % name.replace('"', '""')).fetchall()]
            shape[name] = [kind, wr, strict, columns]
            if kind == 'view':
                # A view's rows are its definition: one rewritten to answer a verification's query
                # (same columns, other rows) is a reshaped state.
                row = con.execute("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?", (name,)).fetchone()
                shape[name].append(_verdict_view_text(row[0]) if row else None)
        return shape
    finally:
        con.close()


def _verdict_materialize(state, name):
    path = _verdict_os.path.join(_verdict_os.getcwd(), name)
    if 'sqlite' in state:
        with open(path, 'wb') as out:
            out.write(_verdict_b64.b64decode(state['sqlite']))
    else:
        con = _verdict_connect(path)
        try:
            con.executescript(state['sql'])
            con.commit()
        finally:
            con.close()
    # A database Verdict built itself (an environment's initial state) was checked when it was built.
    shape = _verdict_shape(path, not state.get('built'))
    _verdict_os.chmod(path, 0o444)
    return path, shape


def _verdict_call_plan(fn, awm):
    # AgentWorldModel's convention: arguments by the names the signature gives; a function of its
    # release that names none of them gets (initial, final[, final_answer]) by position, as its
    # runner does. Verdict's own: (initial, final, params) by position.
    try:
        names = list(_verdict_inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    named = [n for n in _VERDICT_AWM_NAMES if n in names]
    if named and (awm or 'final_answer' in names or 'params' not in names):
        return 'named', named
    if awm:
        if len(names) >= 2:
            return 'positional', list(_VERDICT_AWM_NAMES[: 3 if len(names) >= 3 else 2])
        return 'named', []
    return 'verdict', None


_VERDICT_CLOCK_AT = {'date': 0, 'time': 0, 'datetime': 0, 'julianday': 0, 'unixepoch': 0, 'strftime': 1}


def _verdict_fix_clock(reference):
    # The initial database was built with "now" at the reference time: the verification's own SQL
    # date/time functions read "now" the same way, on every connection it opens. SQLite answers each
    # call on a connection of its own, so every other modifier keeps its meaning.
    clock = _verdict_connect(':memory:')

    def override(name, at):
        def fn(*args):
            values = list(args)
            if len(values) <= at:
                values.append(reference)
            elif isinstance(values[at], str) and values[at].lower() == 'now':
                values[at] = reference
            for k in range(at + 1, len(values)):
                if isinstance(values[k], str) and values[k].lower() in ('localtime', 'utc'):
                    values[k] = '+0 seconds'
            return clock.execute('SELECT %s(%s)' % (name, ', '.join('?' * len(values))), values).fetchone()[0]
        return fn

    functions = [(name, override(name, at)) for name, at in _VERDICT_CLOCK_AT.items()]

    def connect(*args, **kwargs):
        # factory is connect's sixth parameter: one the code chose itself is left alone.
        if len(args) < 6 and 'factory' not in kwargs:
            kwargs['factory'] = _VerdictConnection
        con = _verdict_connect(*args, **kwargs)
        for name, fn in functions:
            con.create_function(name, -1, fn, deterministic=True)
        return con

    _verdict_sqlite3.connect = connect


# The CURRENT_* keywords are not functions, so the overrides above cannot reach them: in the SQL the
# verification runs they are written as the functions they equal, outside string literals, quoted
# names and comments (as the environment's schema and seed data are when it is built). \x60 is a
# backquote, which this template literal cannot hold.
_VERDICT_SKIP = _verdict_re.compile(r"'(?:[^']|'')*'?|\"(?:[^\"]|\"\")*\"?|\x60[^\x60]*\x60?|\[[^\]]*\]?|--[^\n]*|/\*.*?(?:\*/|\Z)", _verdict_re.S)
_VERDICT_CURRENT = _verdict_re.compile(r'\bCURRENT_(TIMESTAMP|DATE|TIME)\b', _verdict_re.I)
_VERDICT_AS_FUNCTION = {'timestamp': "(datetime('now'))", 'date': "(date('now'))", 'time': "(time('now'))"}


def _verdict_with_clock(sql):
    if not isinstance(sql, str) or 'current_' not in sql.lower():
        return sql
    out = []
    k = 0
    for quoted in _VERDICT_SKIP.finditer(sql):
        out.append(_VERDICT_CURRENT.sub(lambda m: _VERDICT_AS_FUNCTION[m.group(1).lower()], sql[k:quoted.start()]))
        out.append(quoted.group(0))
        k = quoted.end()
    out.append(_VERDICT_CURRENT.sub(lambda m: _VERDICT_AS_FUNCTION[m.group(1).lower()], sql[k:]))
    return ''.join(out)


def _verdict_view_text(sql):
    # As a built environment's schema holds it: CURRENT_* written as functions, and a "word" that
    # SQLite read as a string written as 'word' (the build's SQLite has no double-quoted literals).
    # So every double-quoted token compares as its single-quoted twin, on both sides.
    sql = _verdict_with_clock(sql)
    out = []
    k = 0
    for quoted in _VERDICT_SKIP.finditer(sql):
        token = quoted.group(0)
        if token.startswith('"') and len(token) >= 2 and token.endswith('"'):
            token = "'" + token[1:-1].replace('""', '"').replace("'", "''") + "'"
        out.append(sql[k:quoted.start()])
        out.append(token)
        k = quoted.end()
    out.append(sql[k:])
    return ''.join(out)


class _VerdictCursor(_verdict_sqlite3.Cursor):
    def execute(self, sql, *args, **kwargs):
        return super().execute(_verdict_with_clock(sql), *args, **kwargs)

    def executemany(self, sql, *args, **kwargs):
        return super().executemany(_verdict_with_clock(sql), *args, **kwargs)

    def executescript(self, sql):
        return super().executescript(_verdict_with_clock(sql))


class _VerdictConnection(_verdict_sqlite3.Connection):
    def cursor(self, factory=_VerdictCursor):
        return super().cursor(factory)

    def execute(self, sql, *args, **kwargs):
        return self.cursor().execute(sql, *args, **kwargs)

    def executemany(self, sql, *args, **kwargs):
        return self.cursor().executemany(sql, *args, **kwargs)

    def executescript(self, sql):
        return self.cursor().executescript(sql)


def _verdict_fix_python_clock(reference):
    # The same "now" for the verification's Python: datetime.now()/utcnow()/today(), date.today()
    # and the time module's clock read the reference time (UTC; local time is UTC), so a task that
    # asks for orders of the last 30 days with datetime.now() sees the seed data it was written
    # for. Classes are replaced in the datetime module before the task's code imports from it.
    base = _verdict_datetime.datetime
    at = base.strptime(reference, '%Y-%m-%d %H:%M:%S').replace(tzinfo=_verdict_datetime.timezone.utc)
    epoch = at.timestamp()

    class datetime(base):
        @classmethod
        def now(cls, tz=None):
            t = at if tz is None else at.astimezone(tz)
            return cls(t.year, t.month, t.day, t.hour, t.minute, t.second, t.microsecond, None if tz is None else t.tzinfo)

        @classmethod
        def utcnow(cls):
            return cls.now()

        @classmethod
        def today(cls):
            return cls.now()

    class date(_verdict_datetime.date):
        @classmethod
        def today(cls):
            return cls(at.year, at.month, at.day)

    for fixed, real, name in ((datetime, base, 'datetime'), (date, _verdict_datetime.date, 'date')):
        fixed.__name__ = fixed.__qualname__ = name
        fixed.__module__ = 'datetime'
        # sqlite3 finds adapters by exact type: a datetime.now() bound as a parameter must still bind.
        adapter = _verdict_sqlite3.adapters.get((real, _verdict_sqlite3.PrepareProtocol))
        if adapter is not None:
            _verdict_sqlite3.register_adapter(fixed, adapter)
    _verdict_datetime.datetime = datetime
    _verdict_datetime.date = date
    localtime, gmtime, strftime, ctime = _verdict_time.localtime, _verdict_time.gmtime, _verdict_time.strftime, _verdict_time.ctime
    _verdict_time.time = lambda: epoch
    _verdict_time.time_ns = lambda: int(epoch) * 1000000000
    _verdict_time.localtime = lambda secs=None: localtime(epoch if secs is None else secs)
    _verdict_time.gmtime = lambda secs=None: gmtime(epoch if secs is None else secs)
    _verdict_time.strftime = lambda format, t=None: strftime(format, localtime(epoch) if t is None else t)
    _verdict_time.ctime = lambda secs=None: ctime(epoch if secs is None else secs)


def _verdict_load(code):
    # AgentWorldModel's runner: exec(code, {sqlite3, json, os, re, __builtins__}) and take the
    # function from that namespace.
    namespace = {'sqlite3': _verdict_sqlite3, 'json': _verdict_json, 'os': _verdict_os, 're': _verdict_re, '__builtins__': _verdict_builtins}
    exec(compile(code, '<verification>', 'exec', dont_inherit=True), namespace)
    return namespace


def ${STATE_ENTRY}(code, entry, awm, initial, final, params, answer, reference_time):
    # The clock first: code that binds sqlite3.connect or datetime while loading gets the fixed one.
    if reference_time is not None:
        _verdict_fix_clock(reference_time)
        _verdict_fix_python_clock(reference_time)
    try:
        namespace = _verdict_load(code)
    except MemoryError:
        raise
    except Exception as exc:
        return {'verdict': 'load_error', 'error': '%s: %s' % (type(exc).__name__, exc)}
    fn = namespace.get(entry)
    if not callable(fn):
        return {'verdict': 'missing_entry'}
    plan, names = _verdict_call_plan(fn, awm)
    if plan != 'verdict' and 'initial_db_path' in names and initial is None:
        return {'verdict': 'needs_initial'}
    initial_path = None
    initial_shape = None
    if initial is not None:
        try:
            initial_path, initial_shape = _verdict_materialize(initial, 'initial.db')
        except Exception as exc:
            return {'verdict': 'initial_state', 'error': '%s: %s' % (type(exc).__name__, exc)}
    try:
        final_path, final_shape = _verdict_materialize(final, 'final.db')
    except Exception as exc:
        return {'verdict': 'state', 'error': '%s: %s' % (type(exc).__name__, exc)}
    if not any(shape[0] == 'table' for shape in final_shape.values()):
        return {'verdict': 'state', 'error': 'the database has no tables'}
    if initial_shape is not None:
        changed = sorted(t for t, shape in initial_shape.items() if final_shape.get(t) != shape)
        if changed:
            return {'verdict': 'schema', 'tables': changed[:20]}
    given = {'initial_db_path': initial_path, 'final_db_path': final_path, 'final_answer': answer}
    if plan == 'named':
        result = fn(**{n: given[n] for n in names})
    elif plan == 'positional':
        result = fn(*[given[n] for n in names])
    else:
        result = fn(initial_path, final_path, params)
    if isinstance(result, dict) and 'result' in result:
        # AgentWorldModel's verdict; its other keys are free-form and may not be JSON. A value that is
        # not a str is never "complete" (AWM compares it with the str), only shown.
        value = result['result']
        result = {'result': str.__str__(value)} if isinstance(value, str) else {'result': None, 'shown': repr(value)[:100]}
    return {'verdict': 'returned', 'value': result}
`;
