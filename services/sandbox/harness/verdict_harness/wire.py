"""Frames between the harness's processes and Node: 4-byte big-endian length, then the body.

Node <-> judge and run child -> judge bodies are UTF-8 JSON; judge -> run child bodies are marshal
(the trusted direction: a fresh child decodes marshal with far fewer page faults than json)."""

import json
import marshal
import os
import resource
import struct

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36


def _refuse(value):
    raise TypeError('Object of type %s is not JSON serializable' % type(value).__name__)


# One C encoder, made at import: a run child imports this module in its zygote, before the fork, so
# encoding its replies writes to few inherited pages. `json.dumps` builds an encoder object per call
# (separators given), which cost a fresh child ~80 page faults a reply, as much as compiling the
# candidate. Compact separators; NaN and infinities allowed, as json.dumps allows them. No check for
# cycles (json.dumps keeps a fresh dict of the containers it is inside; one shared across calls would
# keep stale entries after a failed call): what goes out are the fresh trees values.py builds.
_encode = getattr(json.encoder, 'c_make_encoder', None)
_encode = _encode and _encode(None, _refuse, json.encoder.encode_basestring_ascii, None, ':', ',', False, False, True)


def frame(obj):
    if _encode is None:
        data = json.dumps(obj, separators=(',', ':')).encode()
    else:
        data = ''.join(_encode(obj, 0)).encode()
    return len(data).to_bytes(4, 'big') + data


def marshal_frame(obj):
    # Judge → run child only (the trusted direction): marshal costs a fresh child far fewer page
    # faults than json. The reverse direction is JSON, never unmarshalled by the judge.
    data = marshal.dumps(obj)
    return struct.pack('>I', len(data)) + data


def write_all(fd, data):
    # Usually one write; Python retries a write a signal interrupted (PEP 475).
    written = os.write(fd, data)
    if written == len(data):
        return
    view = memoryview(data)[written:]
    while view:
        view = view[os.write(fd, view):]


def read_exact(fd, n):
    """`n` bytes from `fd`, or None at end of file first. Usually one read (a run child's job comes
    whole), which a fresh child pays for in fewer page faults than a loop of chunks."""
    first = os.read(fd, n)
    if len(first) == n:
        return first
    if not first:
        return None
    data = bytearray(first)
    while len(data) < n:
        more = os.read(fd, min(n - len(data), 1 << 20))
        if not more:
            return None
        data += more
    return bytes(data)


# One decoder for every JSON frame the judge reads (Node's jobs, run children's replies), which are
# UTF-8: it skips json.loads' encoding detection, ~2 of the judge's ~7 µs per streamed assert. Bad
# UTF-8 is a ValueError, as bad JSON is.
_DECODER = json.JSONDecoder()


def decode_json(body):
    return _DECODER.decode(body.decode('utf-8'))


def read_frame(fd, loads=decode_json):
    """One frame from a trusted, blocking fd (Node; or the judge, marshalled, as a run child reads it)."""
    head = read_exact(fd, 4)
    if head is None:
        return None
    size = int.from_bytes(head, 'big')
    body = read_exact(fd, size)
    return None if body is None else loads(body)


def libc_prctl(option, value):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), 'prctl %d' % option)


def _open_files_top():
    top = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return 65536 if top == resource.RLIM_INFINITY else top


# Read once, at import (in the zygote before any fork): a run child that calls into the resource
# module for it pays ~17 page faults.
OPEN_FILES_TOP = _open_files_top()


def close_fds_except(keep):
    low = 3
    for fd in sorted(keep):
        if fd >= low:
            os.closerange(low, fd)
            low = fd + 1
    os.closerange(low, OPEN_FILES_TOP)
