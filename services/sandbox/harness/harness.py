"""Verdict's sandbox harness: one copy per worker slot, started by Node inside bubblewrap.

Three kinds of process live in one slot's sandbox (its own pid, net, ipc and uts namespaces):

  judge     this process. Sandbox uid 0 holding only CAP_SETUID, CAP_SETGID and CAP_KILL. Reads jobs
            from Node on fd 0, answers on fd 1. It never runs candidate code: it evaluates the label's
            tests itself and decides every verdict, so nothing a candidate does in its own process
            (patched builtins, always-true __eq__, sys.exit, -O, frame inspection) can reach it.
  zygote    forked once at start-up, before the judge has seen any job, so its memory holds no tests.
            Drops to the slot's unprivileged host uid, pre-imports the standard library, then forks
            one fresh run child per run and reaps/sweeps after it. Not dumpable (no ptrace, no
            /proc/<pid>/mem); the child subreaper of every candidate process.
  run child forked from the zygote (same uid), applies its limits, runs the candidate. In module mode
            it answers the judge's remote calls (call a function, read an attribute) with plain data
            or opaque handles; in stdio mode it runs the program as __main__.

The candidate can reach the zygote (same uid): if it kills it, its own run fails and the slot is
recycled. It cannot signal or inspect the judge (another uid), the bwrap init, or Node.

Wire format everywhere: 4-byte big-endian length + UTF-8 JSON.
"""

# Only what the zygote and run children need is imported here: the judge's own modules are imported
# after the zygote is forked, so that they do not weigh on every fork.
import binascii
import builtins
import fcntl
import json
import marshal
import os
import resource
import select
import signal
import socket
import struct
import sys
import time

CONFIG = json.loads(sys.argv[1])
WORKDIR = CONFIG.get('workdir', '/tmp')
MAX_SHARED_CODE = 256 * 1024
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36

# Modules a run child finds already imported: the zygote pays their import once. Chosen for what
# solutions import most (typing for every HumanEval prompt); each one also makes every fork dearer.
PRELOAD = (
    'array bisect cmath collections copy datetime decimal fractions functools heapq itertools math '
    'operator random re string typing'
).split()


# ----------------------------------------------------------------------------------------------
# Framing


def frame(obj):
    data = json.dumps(obj, separators=(',', ':')).encode()
    return struct.pack('>I', len(data)) + data


def marshal_frame(obj):
    # Judge → run child only (the trusted direction): marshal costs a fresh child far fewer page
    # faults than json. The reverse direction is JSON, never unmarshalled by the judge.
    data = marshal.dumps(obj)
    return struct.pack('>I', len(data)) + data


def write_all(fd, data):
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except InterruptedError:
            continue
        view = view[n:]


def read_exact(fd, n):
    chunks = []
    while n:
        try:
            chunk = os.read(fd, min(n, 1 << 20))
        except InterruptedError:
            continue
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b''.join(chunks)


def read_frame(fd, loads=json.loads):
    """One frame from a trusted, blocking fd (Node; or the judge, marshalled, as a run child reads it)."""
    head = read_exact(fd, 4)
    if head is None:
        return None
    (size,) = struct.unpack('>I', head)
    body = read_exact(fd, size)
    return None if body is None else loads(body)


def libc_prctl(option, value):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), 'prctl %d' % option)


def close_fds_except(keep):
    top = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    top = 65536 if top == resource.RLIM_INFINITY else top
    low = 3
    for fd in sorted(keep):
        if fd >= low:
            os.closerange(low, fd)
            low = fd + 1
    os.closerange(low, top)


# ----------------------------------------------------------------------------------------------
# Values between judge and run child. Plain data travels by value with a tag for each non-JSON
# container; anything else stays in the child and travels as an opaque handle {"h": n}.


def encode(value, handles):
    t = type(value)
    if value is None or t is bool or t is str:
        return value
    if t is float:
        return value if value == value and value not in (float('inf'), float('-inf')) else {'x': repr(value)}
    if t is int:
        return value if -(1 << 53) < value < (1 << 53) else {'i': hex(value)}
    if t is list:
        return [encode(v, handles) for v in value]
    if t is tuple:
        return {'t': [encode(v, handles) for v in value]}
    if t is dict:
        return {'d': [[encode(k, handles), encode(v, handles)] for k, v in value.items()]}
    if t is set:
        return {'s': [encode(v, handles) for v in value]}
    if t is frozenset:
        return {'f': [encode(v, handles) for v in value]}
    if t is bytes or t is bytearray:
        return {'b': bytes(value).hex()}
    if t is complex:
        return {'c': [encode(value.real, handles), encode(value.imag, handles)]}
    if handles is None:
        raise TypeError('cannot send %s' % t.__name__)
    # Subclasses of plain types (namedtuple, IntEnum, str subclasses) travel as their base value.
    for base in (bool, int, float, str, tuple, list, dict, frozenset, set, bytes):
        if isinstance(value, base):
            return encode(base(value), handles)
    return handles(value)


def decode(value, handle):
    """Inverse of encode. Only ever builds plain built-in values (and handles via `handle`)."""
    if type(value) is list:
        return [decode(v, handle) for v in value]
    if type(value) is not dict:
        return value
    if len(value) != 1:
        raise ValueError('bad value')
    ((tag, v),) = value.items()
    if tag == 't':
        return tuple(decode(x, handle) for x in v)
    if tag == 'd':
        return {decode(k, handle): decode(x, handle) for k, x in v}
    if tag == 's':
        return set(decode(x, handle) for x in v)
    if tag == 'f':
        return frozenset(decode(x, handle) for x in v)
    if tag == 'i':
        return int(v, 16)
    if tag == 'x':
        return float(v)
    if tag == 'b':
        return bytes.fromhex(v)
    if tag == 'c':
        return complex(float(v[0]), float(v[1]))
    if tag == 'h':
        if type(v) is not int:
            raise ValueError('bad handle')
        return handle(v)
    raise ValueError('bad tag')


def plain_json(value, depth=0):
    """The value as strict JSON (tuples become lists), or TypeError naming what is not JSON."""
    if depth > 200:
        raise TypeError('value nested too deeply')
    t = type(value)
    if value is None or t is bool or t is str or t is int:
        return value
    if t is float:
        if value != value or value in (float('inf'), float('-inf')):
            raise TypeError('float %r is not JSON' % value)
        return value
    if t is list or t is tuple:
        return [plain_json(v, depth + 1) for v in value]
    if t is dict:
        out = {}
        for k, v in value.items():
            if type(k) is not str:
                raise TypeError('dict key %r is not a string' % (k,))
            out[k] = plain_json(v, depth + 1)
        return out
    raise TypeError('%s is not JSON' % t.__name__)


def error_text(exc):
    text = '%s: %s' % (type(exc).__name__, exc) if str(exc) else type(exc).__name__
    return text[:2000]


# ----------------------------------------------------------------------------------------------
# Run child (uid of the slot, forked from the zygote). Everything before `exec` of candidate code
# is trusted; after it the candidate owns this process, so nothing here is believed by the judge
# beyond "these are the values the candidate chose to return".


def child_main(fds):
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 16) for fd in fds]
        for target, fd in zip((3, 4, 0, 1, 2), high):
            os.dup2(fd, target)
        close_fds_except({0, 1, 2, 3, 4})
        job = read_frame(3, marshal.loads)
        if job is None:
            os._exit(0)
        apply_limits(job['limits'])
        # Python reseeds `random` from the OS on fork; a fixed seed keeps rewards reproducible.
        if 'random' in sys.modules:
            sys.modules['random'].seed(0)
        if job['op'] == 'stdio':
            run_program(job)
        else:
            serve_module(job)
    except BaseException:
        if CONFIG.get('debug'):
            sys.__excepthook__(*sys.exc_info())
    os._exit(70)


def apply_limits(limits):
    cpu = max(1, -(-limits['cpu_total_ms'] // 1000)) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (limits['as_bytes'], limits['as_bytes']))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits['file_bytes'], limits['file_bytes']))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits['open_files'], limits['open_files']))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits['processes'], limits['processes']))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.chdir(WORKDIR)


def send_child(obj):
    write_all(4, frame(obj))


def run_program(job):
    import io
    try:
        if 'marshal' in job:
            code = marshal.loads(job['marshal'])
        else:
            code = compile(job['code'], 'main.py', 'exec', dont_inherit=True)
    except BaseException as exc:
        send_child({'compiled': False, 'error': error_text(exc)})
        os._exit(1)
    # The code object, made before any candidate code ran (so still ours): the judge hands it to
    # this job's later runs, which then skip the compiler, the dearest step of a fresh child.
    packed = b''
    if 'marshal' not in job:
        packed = marshal.dumps(code)
    if len(packed) > MAX_SHARED_CODE:
        packed = b''
    send_child({'compiled': True, 'marshal': binascii.b2a_base64(packed, newline=False).decode()})
    os.close(3)
    os.close(4)
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, 'r', closefd=False)), encoding='utf-8', errors='replace')
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, 'w', closefd=False)), encoding='utf-8', errors='backslashreplace')
    sys.stderr = io.TextIOWrapper(io.FileIO(2, 'w', closefd=False), encoding='utf-8', errors='backslashreplace', write_through=True)
    sys.argv = ['main.py']
    main = type(sys)('__main__')
    main.__dict__['__builtins__'] = builtins
    main.__dict__['__file__'] = 'main.py'
    sys.modules['__main__'] = main
    status = 0
    try:
        exec(code, main.__dict__)
    except SystemExit as exc:
        status = exit_status(exc)
    except BaseException:
        # The C-level hook prints the usual traceback without importing the traceback module.
        sys.__excepthook__(*sys.exc_info())
        status = 1
    try:
        # Like interpreter exit: wait for the program's non-daemon threads, if it started any.
        if 'threading' in sys.modules:
            sys.modules['threading']._shutdown()
        sys.stdout.flush()
    except BaseException:
        status = status or 120
    os._exit(status)


def exit_status(exc):
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        print(code, file=sys.stderr)
    except BaseException:
        pass
    return 1


def serve_module(job):
    null = os.open('/dev/null', os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    namespace = {'__name__': job.get('module_name', 'solution'), '__builtins__': builtins}
    try:
        if 'marshal' in job:
            code = marshal.loads(job['marshal'])
        else:
            code = compile(job['code'], 'solution.py', 'exec', dont_inherit=True)
    except BaseException as exc:
        send_child({'ok': False, 'stage': 'compile', 'error': error_text(exc)})
        os._exit(0)
    try:
        exec(code, namespace)
    except BaseException as exc:
        send_child({'ok': False, 'stage': 'load', 'error': error_text(exc), 'cls': type(exc).__name__})
        os._exit(0)
    objects = []

    def handle(value):
        objects.append(value)
        return {'h': len(objects) - 1}

    # The load report carries the globals the judge's tests name, saving a round trip.
    try:
        found = [[name, encode(namespace[name], handle)] for name in job.get('names', ()) if name in namespace]
        send_child({'ok': True, 'v': {'d': found}})
    except BaseException as exc:
        send_child({'ok': False, 'stage': 'load', 'error': error_text(exc), 'cls': type(exc).__name__})
        os._exit(0)

    def resolve(n):
        if not 0 <= n < len(objects):
            raise ValueError('bad handle')
        return objects[n]

    while True:
        request = read_frame(3, marshal.loads)
        if request is None:
            os._exit(0)
        op = request['op']
        if op == 'batch':
            # One reply per call, in order, as each finishes: the judge reads them as its tests run.
            for h, args, kwargs in request['calls']:
                answer(resolve, handle, {'op': 'call', 'h': h, 'args': args, 'kwargs': kwargs})
            continue
        if op == 'callg':
            try:
                fn = namespace.get(request['name'])
                if not callable(fn):
                    send_child({'ok': False, 'missing': True})
                    continue
                result = fn(*request['args'])
                try:
                    send_child({'ok': True, 'v': plain_json(result)})
                except TypeError as exc:
                    send_child({'ok': False, 'error': 'TypeError: returned %s' % exc, 'cls': 'TypeError'})
            except BaseException as exc:
                send_error(exc)
            continue
        answer(resolve, handle, request)


def send_error(exc):
    try:
        send_child({'ok': False, 'error': error_text(exc), 'cls': type(exc).__name__})
    except BaseException:
        os._exit(0)


def answer(resolve, handle, request):
    """Runs one remote operation on a candidate object and sends its reply."""
    op = request['op']
    try:
        target = resolve(request['h'])
        if op == 'call':
            args = decode(request['args'], resolve)
            kwargs = decode(request['kwargs'], resolve)
            result = target(*args, **kwargs)
        elif op == 'getattr':
            result = getattr(target, request['name'])
        elif op == 'list':
            result = list(target)
        elif op == 'len':
            result = len(target)
        elif op == 'getitem':
            result = target[decode(request['key'], resolve)]
        else:
            raise ValueError('unknown op')
        send_child({'ok': True, 'v': encode(result, handle)})
    except BaseException as exc:
        send_error(exc)


# ----------------------------------------------------------------------------------------------
# Zygote


def zygote_main(sock):
    close_fds_except({sock.fileno()})
    null = os.open('/dev/null', os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    # Inherited by every run child: under memory pressure the kernel kills candidates, not the judge.
    # (Written before setuid, which makes the process non-dumpable and its /proc files root's.)
    with open('/proc/self/oom_score_adj', 'w') as f:
        f.write('1000')
    os.setgroups([])
    os.setgid(CONFIG['gid'])
    os.setuid(CONFIG['uid'])
    # After setuid: a credential change clears the parent-death signal.
    libc_prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    libc_prctl(PR_SET_DUMPABLE, 0)
    libc_prctl(PR_SET_CHILD_SUBREAPER, 1)
    install_exit_builtins()
    import importlib
    for name in PRELOAD:
        importlib.import_module(name)
    import gc
    gc.collect()
    gc.freeze()
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    sock.send(json.dumps({'hello': True, 'vm_bytes': vm_bytes()}).encode())
    current = None
    while True:
        try:
            readable, _, _ = select.select([sock, wake_r], [], [])
        except InterruptedError:
            continue
        if wake_r in readable:
            try:
                while os.read(wake_r, 512):
                    pass
            except BlockingIOError:
                pass
            current = reap(sock, current)
        if sock in readable:
            msg, fds, _, _ = socket.recv_fds(sock, 1 << 16, 8)
            if not msg:
                os._exit(0)
            request = json.loads(msg)
            if request['op'] == 'spawn':
                sweep()
                clean_workdir()
                pid = os.fork()
                if pid == 0:
                    child_main(fds)
                for fd in fds:
                    os.close(fd)
                current = pid
                sock.send(json.dumps({'spawned': pid}).encode())


def reap(sock, current):
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return current
        if pid == 0:
            return current
        if pid == current:
            sock.send(json.dumps({'exit': pid, 'status': status}).encode())
            current = None


class Exiter:
    """`exit()` and `quit()` as the `site` module defines them (the sandbox starts Python with -S)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return 'Use %s() to exit' % self.name

    def __call__(self, code=None):
        try:
            sys.stdin.close()
        except BaseException:
            pass
        raise SystemExit(code)


def install_exit_builtins():
    builtins.exit = Exiter('exit')
    builtins.quit = Exiter('quit')


def sweep():
    """Kills every other process of this uid in the sandbox (kill(-1) spares the caller), reaps them,
    and removes the System V IPC objects they left (the one kind of state that outlives processes)."""
    while True:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            pass
    remove_ipc()


IPC_RMID = 0


def remove_ipc():
    for kind in ('shm', 'msg', 'sem'):
        try:
            with open('/proc/sysvipc/' + kind) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        if not rows:
            continue
        import ctypes
        libc = ctypes.CDLL(None)
        for row in rows:
            ident = int(row.split()[1])
            if kind == 'shm':
                libc.shmctl(ident, IPC_RMID, None)
            elif kind == 'msg':
                libc.msgctl(ident, IPC_RMID, None)
            else:
                libc.semctl(ident, 0, IPC_RMID)


def clean_workdir():
    for name in os.listdir(WORKDIR):
        remove_tree(os.path.join(WORKDIR, name))


def remove_tree(path):
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, 0o700)
            for name in os.listdir(path):
                remove_tree(os.path.join(path, name))
            os.rmdir(path)
        else:
            os.unlink(path)
    except FileNotFoundError:
        pass


def vm_bytes():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmSize:'):
                return int(line.split()[1]) * 1024
    return 0


# ----------------------------------------------------------------------------------------------
# Judge


class Halt(BaseException):
    """The run child is gone or out of budget; a BaseException so test code cannot catch it."""

    def __init__(self, kind, detail=''):
        super().__init__(kind)
        self.kind = kind
        self.detail = detail


class CandidateExit(BaseException):
    """The candidate raised SystemExit/KeyboardInterrupt: never catchable by a test's `except Exception`."""


class LabelError(Exception):
    pass


class Fault(Exception):
    """The sandbox itself failed before the candidate ran: the job is answered ABORTED."""


class Budget:
    """CPU time of the run child for one test, checked whenever the judge waits on it."""

    def __init__(self, child, cpu_ms, wall_ms):
        self.child = child
        self.cpu_limit = cpu_ms / 1000.0
        self.cpu_start = child.cpu_seconds()
        self.wall_end = time.monotonic() + wall_ms / 1000.0

    def next_timeout(self):
        """Seconds to wait before the next check, or raises Halt('time') when spent."""
        now = time.monotonic()
        if now >= self.wall_end:
            raise Halt('time', 'wall-clock limit')
        used = self.child.cpu_seconds() - self.cpu_start
        if used >= self.cpu_limit:
            raise Halt('time', 'cpu limit')
        # Wall time never runs slower than one thread's CPU time, so this wait cannot overshoot much.
        return max(0.005, min(self.wall_end - now, self.cpu_limit - used))


class Child:
    """One run child as the judge sees it: its pipes and what the zygote reported about it."""

    def __init__(self, judge, pid, ctl_in, ctl_out, stdin, stdout, stderr):
        self.judge = judge
        self.pid = pid
        self.ctl_in, self.ctl_out = ctl_in, ctl_out
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        self.buffer = b''
        self.max_reply = 1 << 20
        for fd in (ctl_in, ctl_out, stdout, stderr):
            os.set_blocking(fd, False)
        self.budget = None
        self.cpu_clock = (~pid << 3) | 2

    def cpu_seconds(self):
        # The process-wide CPU clock of another pid, as clock_getcpuclockid(3) builds its id:
        # one syscall with nanosecond resolution instead of parsing /proc/<pid>/stat.
        try:
            return time.clock_gettime(self.cpu_clock)
        except OSError:
            return 0.0

    def send(self, obj):
        # Non-blocking, under the budget: a child that stops reading must not stall the judge.
        view = memoryview(marshal_frame(obj))
        while view:
            try:
                view = view[os.write(self.ctl_in, view):]
                continue
            except BlockingIOError:
                pass
            except OSError:
                raise Halt('died', 'closed its request pipe')
            self.judge.wait_writable(self.ctl_in, self.budget.next_timeout())

    def recv(self):
        """The next reply frame, waiting under the current budget."""
        while True:
            if len(self.buffer) >= 4:
                (size,) = struct.unpack('>I', self.buffer[:4])
                if size > self.max_reply:
                    raise Halt('output', 'reply of %d bytes' % size)
                if len(self.buffer) >= 4 + size:
                    body, self.buffer = self.buffer[4:4 + size], self.buffer[4 + size:]
                    try:
                        return json.loads(body)
                    except (ValueError, RecursionError):
                        raise Halt('protocol', 'unreadable reply')
            self.judge.wait([self.ctl_out], self.budget.next_timeout())
            if self.judge.exit_status(self.pid) is not None and not self.readable_now():
                raise Halt('died', describe_status(self.judge.exit_status(self.pid)))
            try:
                chunk = os.read(self.ctl_out, 1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                raise Halt('died', 'exited')
            self.buffer += chunk

    def readable_now(self):
        return bool(select.select([self.ctl_out], [], [], 0)[0])

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        for fd in (self.ctl_in, self.ctl_out, self.stdin, self.stdout, self.stderr):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.ctl_in = self.ctl_out = self.stdin = self.stdout = self.stderr = None


def describe_status(status):
    if os.WIFSIGNALED(status):
        return 'killed by %s' % signal.Signals(os.WTERMSIG(status)).name
    return 'exited with status %d' % os.WEXITSTATUS(status)


class Remote:
    """A candidate object the judge holds only by handle. Comparisons are identity; truth is refused."""

    __slots__ = ('_verdict_handle', '_verdict_judge')

    def __init__(self, judge, handle):
        object.__setattr__(self, '_verdict_handle', handle)
        object.__setattr__(self, '_verdict_judge', judge)

    def _rpc(self, op, **fields):
        return self._verdict_judge.rpc(op, h=self._verdict_handle, **fields)

    def __call__(self, *args, **kwargs):
        judge = self._verdict_judge
        return self._rpc('call', args=judge.to_child(list(args)), kwargs=judge.to_child(kwargs))

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return self._rpc('getattr', name=name)

    def __iter__(self):
        values = self._rpc('list')
        if type(values) is not list:
            raise TypeError('candidate iterable did not produce a list')
        return iter(values)

    def __len__(self):
        n = self._rpc('len')
        if type(n) is not int:
            raise TypeError('candidate __len__ returned a non-int')
        return n

    def __getitem__(self, key):
        return self._rpc('getitem', key=self._verdict_judge.to_child(key))

    def __bool__(self):
        raise TypeError('the truth of a candidate object is not taken from the candidate')

    def __repr__(self):
        return '<candidate object>'


EXCEPTIONS = {
    name: cls
    for name, cls in vars(builtins).items()
    if isinstance(cls, type) and issubclass(cls, Exception) and not issubclass(cls, Warning)
}


class Judge:
    def __init__(self, sock, zygote_pid):
        self.sock = sock
        self.zygote_pid = zygote_pid
        self.zygote_lost = False
        self.exits = {}
        self.spare = None
        self.child = None
        self.code_cache = {}
        self.tests_cache = {}
        self.last_value = None
        hello = self.zygote_message(30.0)
        if not hello or 'hello' not in hello:
            raise Fault('zygote did not start')
        self.baseline = hello['vm_bytes']

    # -- zygote --

    def zygote_message(self, timeout):
        if self.zygote_lost or not select.select([self.sock], [], [], timeout)[0]:
            return None
        try:
            msg = self.sock.recv(1 << 16)
        except OSError:
            msg = b''
        if not msg:
            self.zygote_lost = True
            return None
        data = json.loads(msg)
        if 'exit' in data:
            self.exits[data['exit']] = data['status']
        return data

    def wait(self, fds, timeout):
        """Waits for one of `fds` (or a zygote message) for at most `timeout` seconds."""
        watched = list(fds) + ([] if self.zygote_lost else [self.sock])
        try:
            readable = select.select(watched, [], [], timeout)[0]
        except InterruptedError:
            return []
        if self.sock in readable:
            self.zygote_message(0)
            if self.zygote_lost:
                raise Halt('disrupted', 'the candidate took down its sandbox')
        return readable

    def poll_zygote(self):
        """Reads every pending zygote message, so that a zygote the candidate killed is noticed now."""
        while not self.zygote_lost and self.zygote_message(0) is not None:
            pass

    def wait_writable(self, fd, timeout):
        watched = [] if self.zygote_lost else [self.sock]
        try:
            readable = select.select(watched, [fd], [], timeout)[0]
        except InterruptedError:
            return
        if readable:
            self.zygote_message(0)
            if self.zygote_lost:
                raise Halt('disrupted', 'the candidate took down its sandbox')

    def exit_status(self, pid):
        return self.exits.get(pid)

    def spawn(self):
        if self.zygote_lost:
            raise Fault('zygote lost')
        ours, theirs = [], []
        for _ in range(5):
            r, w = os.pipe()
            ours.append((r, w))
        # (judge end, child end) per pipe: ctl_in, ctl_out, stdin, stdout, stderr
        ctl_in_r, ctl_in_w = ours[0]
        ctl_out_r, ctl_out_w = ours[1]
        in_r, in_w = ours[2]
        out_r, out_w = ours[3]
        err_r, err_w = ours[4]
        theirs = [ctl_in_r, ctl_out_w, in_r, out_w, err_w]
        try:
            # A candidate may have stopped its zygote (same uid): wake it before asking for a fork.
            os.kill(self.zygote_pid, signal.SIGCONT)
        except OSError:
            pass
        try:
            socket.send_fds(self.sock, [b'{"op":"spawn"}'], theirs)
        except OSError:
            self.zygote_lost = True
        finally:
            for fd in theirs:
                os.close(fd)
        deadline = time.monotonic() + 10.0
        while not self.zygote_lost:
            msg = self.zygote_message(max(0.0, deadline - time.monotonic()))
            if msg is None:
                break
            if 'spawned' in msg:
                return Child(self, msg['spawned'], ctl_in_w, ctl_out_r, in_w, out_r, err_r)
        for fd in (ctl_in_w, ctl_out_r, in_w, out_r, err_r):
            os.close(fd)
        raise Fault('zygote did not fork a run child')

    def take_child(self):
        child, self.spare = self.spare, None
        if child is not None:
            self.zygote_message(0)
            if self.exit_status(child.pid) is None:
                return child
            child.close()
        return self.spawn()

    def refill(self):
        if self.spare is None and not self.zygote_lost:
            try:
                self.spare = self.spawn()
            except Fault:
                pass

    def limits_for_child(self, limits, tests):
        return {
            'cpu_total_ms': limits['cpu_ms'] * (tests + 1),
            'as_bytes': self.baseline + limits['memory_mb'] * 1024 * 1024,
            'file_bytes': limits['file_mb'] * 1024 * 1024,
            'open_files': limits['open_files'],
            'processes': limits['processes'],
        }

    # -- remote calls --

    def rpc(self, op, **fields):
        self.child.send(dict(op=op, **fields))
        return self.receive_value()

    def receive_value(self):
        """The value (or raised error) of the next reply of the run child."""
        reply = self.child.recv()
        if type(reply) is not dict or type(reply.get('ok')) is not bool:
            raise Halt('protocol', 'malformed reply')
        if reply['ok']:
            value = self.value_of(reply)
            self.last_value = value
            return value
        self.raise_candidate_error(reply)

    def can_stream(self, plans, namespace):
        if not all(plan is not None and isinstance(namespace.get(plan[0]), Remote) for plan in plans):
            return False
        return 'math' not in namespace or namespace['math'] is sys.modules.get('math')

    def stream_calls(self, plans, namespace, limits):
        """Sends every test's one call at once; the child answers each as it finishes, and each
        test, evaluated as usual, takes the next answer. Saves a round trip per test; the verdicts
        are those of one call at a time, since each of these tests makes exactly that one call."""
        calls = [[namespace[name]._verdict_handle, self.to_child(list(args)), self.to_child(kwargs)] for name, args, kwargs in plans]
        self.child.budget = Budget(self.child, limits['cpu_ms'], limits['wall_ms'])
        self.child.send({'op': 'batch', 'calls': calls})
        self.streamed = 0

        def streamed(*_args, **_kwargs):
            self.streamed += 1
            return self.receive_value()

        namespace = dict(namespace)
        for name, _, _ in plans:
            namespace[name] = streamed
        return namespace

    def value_of(self, reply):
        try:
            return decode(reply.get('v'), lambda h: Remote(self, h))
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError, OverflowError):
            raise Halt('protocol', 'malformed value')

    def compile_tests(self, tests, fn_name):
        """The tests compiled, and every name they use; cached, since a group's rollouts share them."""
        import ast
        import hashlib
        key = hashlib.sha256(json.dumps([fn_name, tests]).encode()).digest()
        cached = self.tests_cache.get(key)
        if cached is not None:
            return cached
        compiled, names, plans = [], set(), []
        for i, source in enumerate(tests):
            try:
                tree = ast.parse(source, '<test %d>' % i)
                compiled.append(compile(tree, '<test %d>' % i, 'exec', dont_inherit=True))
            except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
                return {'label_error': {'field': 'tests[%d]' % i, 'error': error_text(exc)}}
            names.update(node.id for node in ast.walk(tree) if isinstance(node, ast.Name))
            plans.append(single_call(tree, fn_name))
        entry = {'code': compiled, 'names': names, 'plans': plans}
        if len(self.tests_cache) >= 256:
            self.tests_cache.pop(next(iter(self.tests_cache)))
        self.tests_cache[key] = entry
        return entry

    def raise_candidate_error(self, reply):
        cls_name = reply.get('cls') if type(reply.get('cls')) is str else ''
        message = str(reply.get('error', ''))[:2000]
        if cls_name in ('SystemExit', 'KeyboardInterrupt', 'GeneratorExit'):
            raise CandidateExit(message)
        if cls_name == 'MemoryError':
            raise Halt('memory', message)
        cls = EXCEPTIONS.get(cls_name, Exception)
        try:
            error = cls(message)
        except Exception:
            error = Exception(message)
        raise error

    def to_child(self, value):
        def handle(obj):
            if isinstance(obj, Remote) and obj._verdict_judge is self:
                return {'h': obj._verdict_handle}
            raise LabelError('a test passes a %s to the candidate, which only takes plain data' % type(obj).__name__)
        return encode(value, handle)

    # -- jobs --

    def handle(self, job):
        op = job.get('op')
        if op == 'ping':
            return {'pong': True, 'baseline_bytes': self.baseline}
        if op == 'asserts':
            return self.run_asserts(job)
        if op == 'stdio':
            return self.run_stdio(job)
        if op == 'call':
            return self.run_call(job)
        return {'fault': 'unknown op %r' % op}

    def start(self, child, job, limits, tests):
        """Sends the run job to a fresh child and waits for its load report."""
        self.child = child
        child.budget = Budget(child, limits['cpu_ms'], limits['wall_ms'])
        child.max_reply = limits['output_bytes']
        child.send(dict(job, limits=self.limits_for_child(limits, tests)))
        return child.recv()

    def finish(self):
        if self.child is not None:
            self.child.close()
            self.exits.pop(self.child.pid, None)
            self.child = None

    def run_asserts(self, job):
        limits = job['limits']
        tests = job['tests']
        fn_name = job.get('fn_name')
        compiled = self.compile_tests(tests, fn_name)
        if 'label_error' in compiled:
            return compiled
        compiled, names, plans = compiled['code'], compiled['names'], compiled['plans']
        namespace = {'__name__': '__verdict_tests__', '__builtins__': builtins}
        if job.get('setup'):
            try:
                exec(compile(job['setup'], '<setup>', 'exec', dont_inherit=True), namespace)
            except BaseException as exc:
                return {'label_error': {'field': 'setup', 'error': error_text(exc)}}
        # A test's names come from the label's setup, then the real builtins and standard library;
        # only the rest (and the entry point) from the candidate, so it cannot redefine `abs` or `math`.
        wanted = []
        for name in sorted(names):
            if name in namespace and name != fn_name:
                continue
            if name != fn_name and hasattr(builtins, name):
                continue
            if name != fn_name and name in sys.stdlib_module_names:
                try:
                    namespace[name] = __import__(name)
                    continue
                except ImportError:
                    pass
            wanted.append(name)

        total = len(tests)
        result = {'passed': 0, 'total': total}
        self.streamed = None
        child = self.take_child()
        try:
            request = {'op': 'module', 'code': job['code'], 'module_name': 'solution', 'names': wanted}
            loaded = self.start(child, request, limits, total)
            if type(loaded) is not dict or loaded.get('ok') is not True:
                error = str(loaded.get('error', ''))[:2000] if type(loaded) is dict else 'malformed reply'
                if type(loaded) is dict and loaded.get('stage') == 'compile':
                    result['compile_error'] = error
                else:
                    result['failure'] = {'index': 0, 'stage': 'load', 'reason': load_reason(loaded), 'error': error}
                return result
            found = self.value_of(loaded)
            if type(found) is not dict:
                raise Halt('protocol', 'malformed names')
            for name in wanted:
                if name in found:
                    namespace[name] = found[name]
            if self.can_stream(plans, namespace):
                namespace = self.stream_calls(plans, namespace, limits)
            for i, test in enumerate(compiled):
                child.budget = Budget(child, limits['cpu_ms'], limits['wall_ms'])
                self.last_value = None
                try:
                    exec(test, namespace)
                except Halt:
                    raise
                except LabelError as exc:
                    return {'label_error': {'field': 'tests[%d]' % i, 'error': str(exc)}}
                except BaseException as exc:
                    if isinstance(exc, AssertionError):
                        reason, error = 'assertion_failed', 'AssertionError'
                    elif isinstance(exc, CandidateExit):
                        reason, error = 'exited', str(exc)
                    else:
                        reason, error = 'error', error_text(exc)
                    result['failure'] = {'index': i, 'reason': reason, 'error': error, 'got': short_repr(self.last_value)}
                    return result
                if self.streamed is not None and self.streamed != i + 1:
                    raise Fault('streamed test %d made %d calls' % (i, self.streamed - i))
                result['passed'] += 1
            return result
        except Halt as halt:
            index = result['passed']
            result['failure'] = {'index': index, 'reason': halt.kind, 'error': halt.detail}
            return result
        finally:
            self.finish()

    def run_stdio(self, job):
        limits = job['limits']
        tests = job['tests']
        result = {'passed': 0, 'total': len(tests)}
        program = {'op': 'stdio', 'code': job['code']}
        for i, test in enumerate(tests):
            child = self.take_child()
            try:
                outcome = self.run_one_program(child, program, test, limits)
            finally:
                self.finish()
            if outcome.get('marshal'):
                program = {'op': 'stdio', 'marshal': outcome.pop('marshal')}
            outcome.pop('marshal', None)
            if 'compile_error' in outcome:
                result['compile_error'] = outcome['compile_error']
                return result
            if outcome['reason'] != 'passed':
                outcome['index'] = i
                result['failure'] = outcome
                return result
            result['passed'] += 1
        return result

    def run_one_program(self, child, program, test, limits):
        try:
            loaded = self.start(child, program, limits, 1)
        except Halt as halt:
            return {'reason': halt.kind, 'error': halt.detail}
        if type(loaded) is not dict or loaded.get('compiled') is not True:
            return {'compile_error': str(loaded.get('error', ''))[:2000] if type(loaded) is dict else 'malformed'}
        shared = None
        if type(loaded.get('marshal')) is str and loaded['marshal']:
            try:
                shared = binascii.a2b_base64(loaded['marshal'])
            except (binascii.Error, ValueError):
                shared = None
        outcome = self.run_loaded_program(child, test, limits)
        if shared is not None:
            outcome['marshal'] = shared
        return outcome

    def run_loaded_program(self, child, test, limits):
        os.close(child.ctl_in)
        child.ctl_in = None
        stdin = test['stdin'].encode()
        expected = test['stdout']
        out_limit = max(limits['output_bytes'], 2 * len(expected.encode()) + 4096)
        out, err = bytearray(), bytearray()
        open_fds = {child.stdout, child.stderr}
        if not stdin:
            os.close(child.stdin)
            child.stdin = None
        else:
            os.set_blocking(child.stdin, False)
        sent = 0
        reason = None
        try:
            while True:
                status = self.exit_status(child.pid)
                if status is not None:
                    drain(child.stdout, out, out_limit + 1)
                    drain(child.stderr, err, 8192)
                    break
                writers = [child.stdin] if child.stdin is not None else []
                timeout = child.budget.next_timeout()
                watched = list(open_fds) + ([] if self.zygote_lost else [self.sock])
                try:
                    readable, writable, _ = select.select(watched, writers, [], timeout)
                except InterruptedError:
                    continue
                if self.sock in readable:
                    self.zygote_message(0)
                    if self.zygote_lost:
                        raise Halt('disrupted', 'the candidate took down its sandbox')
                if writable:
                    try:
                        sent += os.write(child.stdin, stdin[sent:sent + 65536])
                    except BlockingIOError:
                        pass
                    except BrokenPipeError:
                        sent = len(stdin)
                    if sent >= len(stdin):
                        os.close(child.stdin)
                        child.stdin = None
                for fd, buf, cap in ((child.stdout, out, out_limit + 1), (child.stderr, err, 8192)):
                    if fd in readable and fd in open_fds:
                        try:
                            chunk = os.read(fd, 1 << 16)
                        except BlockingIOError:
                            continue
                        if not chunk:
                            open_fds.discard(fd)
                        elif len(buf) < cap:
                            buf += chunk[:cap - len(buf)]
                if len(out) > out_limit:
                    raise Halt('output', 'more than %d bytes of output' % out_limit)
        except Halt as halt:
            reason = halt.kind
            detail = halt.detail
        got = out.decode('utf-8', 'replace')
        stderr_tail = err.decode('utf-8', 'replace').strip().splitlines()
        error = stderr_tail[-1][:500] if stderr_tail else ''
        failure = {'stdin': clip(test['stdin']), 'expected': clip(expected), 'got': clip(got)}
        if reason is not None:
            return dict(failure, reason=reason, error=detail)
        status = self.exit_status(child.pid)
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            kind = 'time' if sig in (signal.SIGXCPU, signal.SIGKILL) else 'runtime_error'
            return dict(failure, reason=kind, error=error or describe_status(status))
        if os.WEXITSTATUS(status) != 0:
            kind = 'memory' if error.startswith('MemoryError') else 'runtime_error'
            return dict(failure, reason=kind, error=error or describe_status(status))
        if not outputs_match(got, expected):
            return dict(failure, reason='wrong_answer', error='')
        return {'reason': 'passed'}

    def run_call(self, job):
        limits = job['limits']
        source = job['source']
        import hashlib
        key = hashlib.sha256(source.encode()).hexdigest()
        packed = self.code_cache.get(key)
        if packed is None:
            try:
                code = compile(source, '<%s>' % job.get('filename', 'source'), 'exec', dont_inherit=True)
            except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as exc:
                return {'kind': 'compile_error', 'error': error_text(exc)}
            packed = marshal.dumps(code)
            if len(self.code_cache) >= 512:
                self.code_cache.pop(next(iter(self.code_cache)))
            self.code_cache[key] = packed
        child = self.take_child()
        try:
            loaded = self.start(child, {'op': 'module', 'marshal': packed, 'module_name': '__verdict__'}, limits, 1)
            if type(loaded) is not dict or loaded.get('ok') is not True:
                if type(loaded) is dict and loaded.get('cls') == 'MemoryError':
                    return {'kind': 'limit', 'limit': 'memory'}
                error = str(loaded.get('error', '')) if type(loaded) is dict else 'malformed reply'
                return {'kind': 'compile_error', 'error': 'raised while loading: ' + error[:2000]}
            child.send({'op': 'callg', 'name': job['entry'], 'args': job['args']})
            reply = child.recv()
            if type(reply) is not dict:
                return {'kind': 'raised', 'error': 'malformed reply'}
            if reply.get('ok') is True:
                return {'kind': 'returned', 'value': reply.get('v')}
            if reply.get('missing'):
                return {'kind': 'missing_entry', 'error': 'no function %r in the source' % job['entry']}
            if reply.get('cls') == 'MemoryError':
                return {'kind': 'limit', 'limit': 'memory'}
            return {'kind': 'raised', 'error': str(reply.get('error', ''))[:2000]}
        except Halt as halt:
            if halt.kind in ('time', 'memory', 'output'):
                return {'kind': 'limit', 'limit': halt.kind}
            return {'kind': 'raised', 'error': '%s: %s' % (halt.kind, halt.detail)}
        finally:
            self.finish()


# Calls a test may make besides its one call into the candidate: none of them can reach the
# candidate through a handle (a handle has no __abs__, __float__, … and refuses bool()).
LOCAL_CALLS = frozenset({'abs', 'round', 'int', 'float', 'complex', 'str', 'repr', 'bool', 'isinstance', 'type'})
UNSTREAMABLE = (
    'BoolOp IfExp Lambda ListComp SetComp DictComp GeneratorExp NamedExpr Subscript Starred Await Yield YieldFrom'
).split()


def single_call(tree, fn_name):
    """(name, args, kwargs) when the test is one assert whose only reach into the candidate is a
    single call of a name with literal arguments, made exactly once; else None."""
    import ast
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
        return None
    node = tree.body[0]
    if node.msg is not None and not isinstance(node.msg, ast.Constant):
        return None
    unstreamable = tuple(getattr(ast, name) for name in UNSTREAMABLE)
    call = None
    for sub in ast.walk(node.test):
        if isinstance(sub, unstreamable):
            return None
        if isinstance(sub, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in sub.ops):
            return None
        if isinstance(sub, ast.Attribute) and not (isinstance(sub.value, ast.Name) and sub.value.id == 'math'):
            return None
        if not isinstance(sub, ast.Call):
            continue
        func = sub.func
        if isinstance(func, ast.Attribute) or (isinstance(func, ast.Name) and func.id in LOCAL_CALLS and func.id != fn_name):
            continue
        if call is not None or not isinstance(func, ast.Name):
            return None
        if any(isinstance(a, ast.Starred) for a in sub.args) or any(k.arg is None for k in sub.keywords):
            return None
        try:
            call = (func.id, [ast.literal_eval(a) for a in sub.args], {k.arg: ast.literal_eval(k.value) for k in sub.keywords})
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    return call


def load_reason(loaded):
    if type(loaded) is dict and loaded.get('cls') == 'MemoryError':
        return 'memory'
    if type(loaded) is dict and loaded.get('cls') in ('SystemExit', 'KeyboardInterrupt'):
        return 'exited'
    return 'error'


def drain(fd, buf, cap):
    while len(buf) < cap:
        try:
            chunk = os.read(fd, 1 << 16)
        except (BlockingIOError, OSError):
            return
        if not chunk:
            return
        if len(buf) < cap:
            buf += chunk[:cap - len(buf)]


def clip(text, n=300):
    return text if len(text) <= n else text[:n] + '…[%d chars]' % len(text)


def short_repr(value):
    if value is None:
        return None
    try:
        return clip(repr(value), 200)
    except Exception:
        return '<unprintable>'


NUMBER = None


def outputs_match(got, expected):
    """Peer-majority lines (LiveCodeBench, rllm, SandboxFusion, open-r1, prime_code): the whole output
    stripped, split into lines, each line stripped, the same number of lines. A line that differs
    may still match token by token where both tokens are decimal numbers and
      - they are equal as decimals (2.5 == 2.50, 120 == 120.0: LiveCodeBench's Decimal rule), or
      - the expected token shows a fractional part and the output agrees with it to every digit it
        shows: |got - expected| <= half a unit in its last place (1.6666666666666667 for 1.666667).
    Case matters and there is no relative tolerance: 0.3333333 does not match 0.333333333."""
    g = got.replace('\r\n', '\n').strip().split('\n')
    e = expected.replace('\r\n', '\n').strip().split('\n')
    if len(g) != len(e):
        return False
    for a, b in zip(g, e):
        a, b = a.strip(), b.strip()
        if a == b:
            continue
        ta, tb = a.split(), b.split()
        if len(ta) != len(tb):
            return False
        for x, y in zip(ta, tb):
            if x != y and not numbers_match(x, y):
                return False
    return True


def numbers_match(got, expected):
    global NUMBER
    if NUMBER is None:
        import re
        NUMBER = re.compile(r'[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z')
    if not (NUMBER.match(got) and NUMBER.match(expected)):
        return False
    from decimal import Decimal
    g, e = Decimal(got), Decimal(expected)
    if g == e:
        return True
    if '.' not in expected or 'e' in expected.lower():
        return False
    return abs(g - e) * 2 <= Decimal(1).scaleb(e.as_tuple().exponent)


# ----------------------------------------------------------------------------------------------


def main():
    node_in = os.dup(0)
    node_out = os.dup(1)
    null = os.open('/dev/null', os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    judge_sock, zygote_sock = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        try:
            judge_sock.close()
            zygote_main(zygote_sock)
        except BaseException:
            traceback.print_exc()
        os._exit(71)
    zygote_sock.close()
    import traceback
    sys.set_int_max_str_digits(0)
    try:
        judge = Judge(judge_sock, pid)
        judge.refill()
    except Fault as fault:
        write_all(node_out, frame({'fault': str(fault)}))
        os._exit(72)
    write_all(node_out, frame({'ready': True, 'baseline_bytes': judge.baseline}))
    while True:
        job = read_frame(node_in)
        if job is None:
            os._exit(0)
        try:
            reply = judge.handle(job)
        except Fault as fault:
            reply = {'fault': str(fault)}
        except Exception as exc:
            reply = {'fault': 'harness error: ' + error_text(exc)}
            traceback.print_exc()
        judge.poll_zygote()
        if judge.zygote_lost:
            reply['recycle'] = True
        write_all(node_out, frame(reply))
        if 'fault' in reply or judge.zygote_lost:
            os._exit(0)
        judge.refill()


main()
