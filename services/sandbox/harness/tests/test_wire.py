"""Frames: the judge's decoder and the encoder made once before any fork read and write exactly what
json.dumps and json.loads would, a failed encoding leaves nothing behind for the next, and a frame
is read whole however the pipe cuts it."""

import json
import marshal
import math
import os
import threading

import pytest

from verdict_harness.wire import decode_json, frame, marshal_frame, read_frame

VALUES = [
    {'ok': True, 'v': {'d': [['add', {'h': 0}]]}},
    {'ok': False, 'error': 'ValueError: é \u2028 "quoted" \\ back', 'cls': 'ValueError'},
    [None, True, False, 0, -1, 2 ** 53 - 1, 1.5, 1e300, -0.0, '', 'a' * 1000],
    {'nested': [[[[{'k': []}]]]], 'nan': math.nan, 'inf': math.inf},
]


@pytest.mark.parametrize('value', VALUES)
def test_frame_is_json_dumps_compact_with_a_length(value):
    data = frame(value)
    body = json.dumps(value, separators=(',', ':')).encode()
    assert data == len(body).to_bytes(4, 'big') + body


def test_a_failed_encoding_leaves_nothing_for_the_next():
    shared = [1, 2]
    with pytest.raises(TypeError, match='not JSON serializable'):
        frame({'a': shared, 'b': object()})
    # The same list again, now with nothing that fails: no stale state, no false "circular" error.
    assert frame({'a': shared})[4:] == b'{"a":[1,2]}'


def test_decode_json_reads_utf8_json_and_refuses_bad_bytes():
    assert decode_json('{"a":"é"}'.encode()) == {'a': 'é'}
    with pytest.raises(ValueError):
        decode_json(b'\xff{"a":1}')
    with pytest.raises(ValueError):
        decode_json(b'{"a":1} extra')


def test_read_frame_reads_a_frame_larger_than_a_pipe_and_sees_an_early_end():
    job = {'op': 'module', 'code': 'x = 1\n' * 100_000}
    r, w = os.pipe()
    writer = threading.Thread(target=lambda: (os.write(w, marshal_frame(job)), os.close(w)))
    writer.start()
    assert read_frame(r, marshal.loads) == job
    writer.join()
    assert read_frame(r, marshal.loads) is None
    os.close(r)
    # A frame cut short: its length promises more than comes before the end.
    r, w = os.pipe()
    os.write(w, (100).to_bytes(4, 'big') + b'short')
    os.close(w)
    assert read_frame(r, marshal.loads) is None
    os.close(r)
