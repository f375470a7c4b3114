"""Values between the judge and a run child: the wire form, and the bounds on what a candidate sends."""

import json
import math
import re

import pytest

from verdict_harness.values import (
    MAX_DEPTH, MAX_INT_DIGITS, MAX_SAME_HASH, Oversize, decode, decode_bounded, encode, plain_json, short_repr,
)

P = 2 ** 61 - 1


class Handle:
    def __init__(self, n):
        self.n = n


def roundtrip(value):
    objects = []

    def handles(obj):
        objects.append(obj)
        return {'h': len(objects) - 1}

    wire = json.loads(json.dumps(encode(value, handles)))
    return decode_bounded(wire, lambda n: objects[n]), decode(wire, lambda n: objects[n])


@pytest.mark.parametrize('value', [
    None, True, 0, -5, 2 ** 53, -(2 ** 80), 1.5, float('inf'), 'text', b'\x00\xff', 1 + 2j,
    [1, [2, (3, 4)]], (1,), {'a': 1, 2: (3,)}, {1, 2}, frozenset({(1, 2)}), {(1, 2): frozenset({3})},
])
def test_plain_values_roundtrip_both_ways(value):
    bounded, trusted = roundtrip(value)
    assert bounded == value and type(bounded) is type(value)
    assert trusted == value and type(trusted) is type(value)


def test_nan_roundtrips():
    bounded, _ = roundtrip(float('nan'))
    assert math.isnan(bounded)


def test_subclasses_travel_as_their_base_and_other_objects_as_handles():
    from collections import namedtuple

    point = namedtuple('Point', 'x y')(1, 2)
    other = object()
    bounded, _ = roundtrip([point, other, True])
    assert bounded[0] == (1, 2) and type(bounded[0]) is tuple
    assert bounded[1] is other
    with pytest.raises(TypeError):
        encode(object(), None)


def test_malformed_wire_values_are_refused():
    for wire in [{'t': [1], 'd': []}, {'z': 1}, {'h': 'x'}, {'i': 5}]:
        with pytest.raises((ValueError, TypeError)):
            decode_bounded(wire, Handle)


def test_an_int_too_long_to_print_is_refused_before_conversion():
    wire = encode(1 << (4 * 1024 * 1024 - 4096), None)
    with pytest.raises(Oversize, match=r'int of about 126\d{4} digits'):
        decode_bounded(wire, Handle)
    # Also as a bare JSON number (a reply the candidate wrote itself).
    with pytest.raises(Oversize):
        decode_bounded(10 ** (MAX_INT_DIGITS + 10), Handle)
    assert decode_bounded(encode(10 ** (MAX_INT_DIGITS - 1), None), Handle) == 10 ** (MAX_INT_DIGITS - 1)


def test_depth_is_bounded():
    value = []
    for _ in range(MAX_DEPTH):
        value = [value]
    assert decode_bounded(encode(value, None), Handle) == value
    with pytest.raises(Oversize, match='nested'):
        decode_bounded(encode([value], None), Handle)


def test_values_crafted_to_share_a_hash_are_refused():
    crafted = [1 + k * P for k in range(1, MAX_SAME_HASH + 2)]
    assert len({hash(v) for v in crafted}) == 1
    with pytest.raises(Oversize, match='one hash'):
        decode_bounded(encode(crafted, None), Handle)
    with pytest.raises(Oversize, match='one hash'):
        decode_bounded(encode({(v, 'x') for v in crafted}, None), Handle)
    # Up to the bound, and any number of equal values, are fine.
    assert decode_bounded(encode(crafted[:MAX_SAME_HASH], None), Handle) == crafted[:MAX_SAME_HASH]
    assert decode_bounded(encode([1 + P] * 10_000, None), Handle) == [1 + P] * 10_000


def test_plain_json_refuses_what_is_not_json():
    assert plain_json((1, [2.5, {'a': None}])) == [1, [2.5, {'a': None}]]
    for bad in [{1: 2}, float('nan'), {1}, b'x']:
        with pytest.raises(TypeError):
            plain_json(bad)


def test_short_repr_is_bounded_whatever_the_value():
    assert short_repr(None) is None
    assert short_repr([1, 'a', (2,)]) == "[1, 'a', (2,)]"
    assert re.fullmatch(r'<int of about 120412\d digits>', short_repr(1 << 4_000_000))
    assert len(short_repr(list(range(10 ** 6)))) <= 220
    assert len(short_repr('x' * 10 ** 6)) <= 220
    nested = []
    for _ in range(10_000):
        nested = [nested]
    assert short_repr(nested).startswith('[[[[')
