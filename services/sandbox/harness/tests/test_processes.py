"""A real run child and a failing zygote, forked here without a sandbox: the child's side of the wire
(load report, one remote call, a label function's call, a stdio program) and the zygote's exit path."""

import json
import os
import socket
import struct
import sys

import pytest

from verdict_harness.child import child_main
from verdict_harness.main import zygote_process
from verdict_harness.values import decode_bounded, encode
from verdict_harness.wire import marshal_frame, read_exact

LIMITS = {'cpu_total_ms': 5000, 'as_bytes': 1 << 40, 'file_bytes': 1 << 20, 'open_files': 64, 'processes': 4096}


class RunChild:
    """The judge's ends of a forked run child's five pipes."""

    def __init__(self, workdir):
        pipes = [os.pipe() for _ in range(5)]
        (ctl_in_r, self.ctl_in), (self.ctl_out, ctl_out_w), (in_r, self.stdin), (self.stdout, out_w), (self.stderr, err_w) = pipes
        self.pid = os.fork()
        if self.pid == 0:
            child_main([ctl_in_r, ctl_out_w, in_r, out_w, err_w], {'workdir': str(workdir)})
        for fd in (ctl_in_r, ctl_out_w, in_r, out_w, err_w):
            os.close(fd)

    def send(self, obj):
        os.write(self.ctl_in, marshal_frame(obj))

    def recv(self):
        (size,) = struct.unpack('>I', read_exact(self.ctl_out, 4))
        return json.loads(read_exact(self.ctl_out, size))

    def finish(self):
        for fd in (self.ctl_in, self.stdin):
            try:
                os.close(fd)
            except OSError:
                pass
        out = b''.join(iter(lambda: os.read(self.stdout, 65536), b''))
        _, status = os.waitpid(self.pid, 0)
        for fd in (self.ctl_out, self.stdout, self.stderr):
            os.close(fd)
        return out, os.waitstatus_to_exitcode(status)


@pytest.fixture
def child(tmp_path):
    run = RunChild(tmp_path)
    yield run
    run.finish()


def test_module_load_report_and_one_remote_call(child):
    code = 'class Box:\n    pass\ndef f(xs, k=1):\n    return sorted(xs)[:k], Box()\nLIMIT = 10'
    child.send({'op': 'module', 'code': code, 'module_name': 'solution', 'names': ['f', 'LIMIT', 'absent'], 'limits': LIMITS})
    loaded = child.recv()
    assert loaded['ok'] is True
    names = decode_bounded(loaded['v'], lambda h: ('handle', h))
    assert names == {'f': ('handle', 0), 'LIMIT': 10}
    child.send({'op': 'call', 'h': 0, 'args': encode([[3, 1, 2]], None), 'kwargs': encode({'k': 2}, None)})
    reply = child.recv()
    value = decode_bounded(reply['v'], lambda h: ('handle', h))
    assert value == ([1, 2], ('handle', 1))


def test_a_raised_error_is_reported_by_class(child):
    child.send({'op': 'module', 'code': 'def f():\n    raise KeyError("k")', 'names': ['f'], 'limits': LIMITS})
    child.recv()
    child.send({'op': 'call', 'h': 0, 'args': encode([], None), 'kwargs': encode({}, None)})
    assert child.recv() == {'ok': False, 'error': "KeyError: 'k'", 'cls': 'KeyError'}


def test_a_label_function_call_returns_strict_json(child):
    child.send({'op': 'module', 'code': 'def check(a, b):\n    return {"sum": a + b, "pair": (a, b)}', 'module_name': '__verdict__', 'limits': LIMITS})
    assert child.recv()['ok'] is True
    child.send({'op': 'callg', 'name': 'check', 'args': [1, 2]})
    assert child.recv() == {'ok': True, 'v': {'sum': 3, 'pair': [1, 2]}}
    child.send({'op': 'callg', 'name': 'nothing', 'args': []})
    assert child.recv() == {'ok': False, 'missing': True}


def test_a_stdio_program_runs_as_main(child):
    code = 'import sys\nif __name__ == "__main__":\n    print(sum(map(int, sys.stdin.read().split())))\n    sys.exit(3)'
    child.send({'op': 'stdio', 'code': code, 'limits': LIMITS})
    assert child.recv()['compiled'] is True
    os.write(child.stdin, b'1 2 39\n')
    os.close(child.stdin)
    out, status = child.finish()
    child.finish = lambda: None
    assert (out, status) == (b'42\n', 3)


def test_a_zygote_that_cannot_start_exits_71_with_its_traceback():
    # Before the package, this path raised UnboundLocalError (traceback used before bound) and never
    # reached os._exit(71).
    def broken(sock, config):
        raise RuntimeError('cannot drop privileges')

    err_r, err_w = os.pipe()
    a, b = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        os.dup2(err_w, 2)
        sys.stderr = open(2, 'w', closefd=False)  # as in the sandbox (pytest captures sys.stderr)
        zygote_process(b, {}, broken)
    os.close(err_w)
    stderr = b''.join(iter(lambda: os.read(err_r, 65536), b'')).decode()
    _, status = os.waitpid(pid, 0)
    os.close(err_r)
    a.close()
    b.close()
    assert os.waitstatus_to_exitcode(status) == 71
    assert 'RuntimeError: cannot drop privileges' in stderr and 'Traceback' in stderr
