"""The run child: forked from the zygote (the slot's uid), it applies its limits, then runs the
candidate. Everything before `exec` of candidate code is trusted; after it the candidate owns this
process, so nothing here is believed by the judge beyond "these are the values it chose to return".

In module mode it answers the judge's remote calls (call a function, read an attribute) with plain
data or opaque handles; in stdio mode it runs the program as __main__."""

import binascii
import builtins
import marshal
import os
import resource
import sys

from .values import decode, encode, error_text, plain_json
from .wire import OPEN_FILES_TOP, frame, read_frame, write_all

MAX_SHARED_CODE = 256 * 1024
# Where a run child parks its five pipe ends while it moves them to 3, 4, 0, 1, 2: above any
# descriptor its zygote holds (a handful).
PARKED = 100


def child_main(fds, config):
    try:
        # The five pipe ends arrive at low numbers: parked above any descriptor the zygote holds,
        # then moved into place, with os.dup2 alone (fcntl's F_DUPFD cost ~30 page faults a run).
        for i, fd in enumerate(fds):
            os.dup2(fd, PARKED + i)
        for i, target in enumerate((3, 4, 0, 1, 2)):
            os.dup2(PARKED + i, target)
        os.closerange(5, OPEN_FILES_TOP)
        job = read_frame(3, marshal.loads)
        if job is None:
            os._exit(0)
        # `random` comes seeded with 0 from the zygote (zygote.preload): rewards are reproducible.
        apply_limits(job['limits'], config.get('workdir', '/tmp'))
        if job['op'] == 'stdio':
            run_program(job)
        else:
            serve_module(job)
    except BaseException:
        if config.get('debug'):
            sys.__excepthook__(*sys.exc_info())
    os._exit(70)


def apply_limits(limits, workdir):
    cpu = max(1, -(-limits['cpu_total_ms'] // 1000)) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (limits['as_bytes'], limits['as_bytes']))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits['file_bytes'], limits['file_bytes']))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits['open_files'], limits['open_files']))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits['processes'], limits['processes']))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.chdir(workdir)


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
                call(resolve, handle, h, args, kwargs)
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


def call(resolve, handle, h, args, kwargs):
    """Calls candidate object `h` and sends the reply: a streamed test's one remote call."""
    try:
        result = resolve(h)(*decode(args, resolve), **decode(kwargs, resolve))
        send_child({'ok': True, 'v': encode(result, handle)})
    except BaseException as exc:
        send_error(exc)


def answer(resolve, handle, request):
    """Runs one remote operation on a candidate object and sends its reply."""
    op = request['op']
    if op == 'call':
        call(resolve, handle, request['h'], request['args'], request['kwargs'])
        return
    try:
        target = resolve(request['h'])
        if op == 'getattr':
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
