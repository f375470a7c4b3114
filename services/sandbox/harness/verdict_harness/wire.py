"""Frames between the harness's processes and Node: 4-byte big-endian length, then the body.

Node <-> judge and run child -> judge bodies are UTF-8 JSON; judge -> run child bodies are marshal
(the trusted direction: a fresh child decodes marshal with far fewer page faults than json)."""

import json
import marshal
import os
import resource
import struct

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36


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

