"""Verdict's start-up hook for every Python the tests run (the bwrap backend puts this folder first
on PYTHONPATH; Python's `site` imports it before any code of the run).

The environment's own modules win over the workspace's. Python puts the working directory first on
sys.path for `python3 -m pytest`, `python3 -c` and stdin (and a test's `sys.path.insert(0, "/app")`
does the same for a folder): a `pytest.py`, a `json.py` or a `*.dist-info` declaring a pytest plugin
in the workdir would be what the tests import or load — the policy's code run by the hidden tests,
a wrong answer scored 1 (found 2026-12-07). So:

- a top-level module the environment has (the standard library, an installed package: the folders
  on sys.path when this hook runs, less PYTHONPATH's) is imported from there; a workspace module
  of another name is found where it always was;
- the distributions importlib.metadata lists by default (pytest's plugin entry points) are the
  environment's only;
- a pytest plugin the episode installed (a `pytest11` entry point written after the container
  started and before the tests were put in: `pip install ./passall` in the episode's container, or
  a change set's `dist-info`) is not loaded — the image's plugins and those test.sh installs are.

- every pytest run records that it started and that it ended (below).

Then the environment's own sitecustomize, if any, runs as it would have.

A test that imports the workspace's code into pytest's own process (`from solution import answer`)
runs it with pytest's rights: a `solution.py` that calls `os._exit(0)` on import, or in a test,
ends pytest with 0 before any test failed — a wrong answer scored 1 (found 2026-12-07). So where
the backend hands this hook a pipe (VERDICT_SESSIONS_FD: a descriptor whose read end only the
runner holds), pytest loads a plugin of this module's (an entry point of a distribution only this
hook lists) that writes `S <pid>` when pytest loads its plugins, before any conftest or test
module is imported, and `F <pid>` when that interpreter exits normally (atexit: a return, an
exception or sys.exit, never os._exit nor a signal). A start without an end is a test run cut
short: the backend reports it and the run is 0 `tests_exited_early`. What a pipe holds cannot be
taken back; a code that knows this record can still write an end of its own.
"""
import os
import sys


def _install():
    here = os.path.dirname(os.path.abspath(__file__))
    # PYTHONPATH is the task's and test.sh's to set (often the workdir): not the environment.
    given = {os.path.abspath(p) for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if p}
    given.add(here)
    environment = [p for p in sys.path if p and os.path.abspath(p) not in given]
    # Run from a `.pth` file (the backend puts one in the interpreter's first site folder, which a
    # test.sh's own PYTHONPATH cannot drop), the site folders after it are not on sys.path yet.
    import site
    for folder in site.getsitepackages() if hasattr(site, 'getsitepackages') else []:
        if os.path.isdir(folder) and os.path.abspath(folder) not in given | {os.path.abspath(p) for p in environment}:
            environment.append(folder)
    roots = {os.path.abspath(p) for p in environment}
    path_finder = next(f for f in sys.meta_path if getattr(f, '__name__', '') == 'PathFinder')

    class EnvironmentFirst:
        """Finds a top-level module in the environment's folders before sys.path is searched."""

        @classmethod
        def find_spec(cls, name, path=None, target=None):
            if path is not None:
                return None  # a submodule: its package's __path__ decides
            spec = path_finder.find_spec(name, environment, target)
            # A namespace portion is no module of the environment's: a regular one elsewhere wins.
            return spec if spec is not None and spec.loader is not None else None

        @classmethod
        def invalidate_caches(cls):
            pass

    sys.meta_path.insert(sys.meta_path.index(path_finder), EnvironmentFirst)

    find_distributions = path_finder.find_distributions
    window = _episode_window(here)

    def environment_distributions(*args, **kwargs):
        context = args[0] if args else kwargs.get('context')
        found = find_distributions(*args, **kwargs)
        # A search the caller aimed at folders of its own is left as it asked.
        if 'path' in kwargs or (context is not None and 'path' in vars(context)):
            return found
        return (_without_episode_plugins(d, window) for d in found if _located_in(d, roots))

    path_finder.find_distributions = staticmethod(environment_distributions)
    if _sessions_fd() is not None:
        EnvironmentFirst.find_distributions = classmethod(_sessions_distribution)

    # The environment's own start-up hook, which this module's name hides.
    spec = path_finder.find_spec('sitecustomize', environment)
    if spec is not None and spec.loader is not None:
        module = type(sys)('sitecustomize')
        module.__file__ = spec.origin
        module.__spec__ = spec
        module.__loader__ = spec.loader
        spec.loader.exec_module(module)


def _located_in(distribution, roots):
    try:
        where = os.path.abspath(str(distribution.locate_file('')))
    except Exception:
        return True  # not a distribution of files: nothing the workspace placed
    return where in roots


def _episode_window(here):
    """When the episode could write files: from the start of the container's first process to the
    moment Verdict put this folder in with the tests (its ctime, which no one can set). None where
    the folder is older than that process (the bwrap backend binds it from the host)."""
    try:
        with open('/proc/stat') as f:
            boot = next(int(line.split()[1]) for line in f if line.startswith('btime '))
        with open('/proc/1/stat') as f:
            ticks = int(f.read().rsplit(')', 1)[1].split()[19])
        started = int((boot + ticks / os.sysconf('SC_CLK_TCK')) * 1e9)
        put_in = os.stat(here).st_ctime_ns
    except (OSError, ValueError, IndexError, StopIteration):
        return None
    return (started, put_in) if started <= put_in else None


def _without_episode_plugins(distribution, window):
    if window is None:
        return distribution
    try:
        changed = os.stat(os.path.join(str(distribution._path), 'entry_points.txt')).st_ctime_ns
    except (AttributeError, OSError):
        return distribution
    if not window[0] <= changed <= window[1]:
        return distribution
    import importlib.metadata as metadata

    class WithoutPytestPlugins(metadata.PathDistribution):
        @property
        def entry_points(self):
            return metadata.EntryPoints(e for e in super().entry_points if e.group != 'pytest11')

    return WithoutPytestPlugins(distribution._path)


SESSIONS_PLUGIN = 'verdict-sessions'


def _sessions_fd():
    """The pipe the backend gave the test run, or None (no backend's, or a descriptor test.sh
    reused for something else)."""
    import stat
    try:
        fd = int(os.environ.get('VERDICT_SESSIONS_FD', ''))
        return fd if stat.S_ISFIFO(os.fstat(fd).st_mode) else None
    except (ValueError, OSError):
        return None


def _sessions_distribution(cls, context=None):
    """This hook's plugin as a distribution with a `pytest11` entry point, in a default search only."""
    if context is not None and (getattr(context, 'name', None) not in (None, SESSIONS_PLUGIN) or 'path' in vars(context)):
        return iter(())
    import importlib.metadata as metadata

    class Sessions(metadata.Distribution):
        def read_text(self, filename):
            if filename == 'METADATA':
                return 'Metadata-Version: 2.1\nName: %s\nVersion: 1\n' % SESSIONS_PLUGIN
            if filename == 'entry_points.txt':
                return '[pytest11]\n%s = sitecustomize:sessions_plugin\n' % SESSIONS_PLUGIN
            return None

        def locate_file(self, path):
            return os.path.join(os.path.dirname(os.path.abspath(__file__)), str(path))

    return iter((Sessions(),))


def _record(line):
    fd = _sessions_fd()
    if fd is None:
        return
    # Never blocking: a pipe the workspace filled fails this write, and pytest with it (a 0), where a
    # blocked pytest would hold the run to its wall time.
    os.set_blocking(fd, False)
    os.write(fd, line.encode())


def __getattr__(name):
    # pytest loads the entry point `sitecustomize:sessions_plugin`: the run starts here, before any
    # conftest or test module (an xdist worker, `python -c`, is its controller's part, not a run).
    if name != 'sessions_plugin':
        raise AttributeError(name)
    if sys.argv[:1] == ['-c'] or 'PYTEST_XDIST_WORKER' in os.environ:
        return type(sys)('verdict_sessions')
    import atexit
    pid = os.getpid()
    _record('S %d\n' % pid)
    # Registered after the start is recorded; a forked child inherits it and records nothing.
    atexit.register(lambda: os.getpid() == pid and _record('F %d\n' % pid))
    return type(sys)('verdict_sessions')


_install()
del _install
