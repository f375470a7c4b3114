"""Values between the judge and a run child. Plain data travels by value, with a tag for each non-JSON
container; anything else stays in the child and travels as an opaque handle {"h": n}.

The child is the candidate's process, so whatever it sends is hostile. `decode` builds only plain
built-in values, and refuses (Oversize) a value whose handling could cost the judge unbounded work:
nested too deeply, too many parts, an int too long to print cheaply, or hashable parts crafted to
share one hash (which makes building a set or dict of them quadratic). Each bound is a size, so the
verdict does not depend on the machine's speed; the candidate pays for it like for any limit."""

import math

# Nesting of containers in one value (a list of lists of … counts each level).
MAX_DEPTH = 100
# Containers and scalars in one value (the reply's byte limit bounds it too; this holds for any config).
MAX_PARTS = 1_000_000
# Decimal digits of one int. The judge's own int -> str conversions stop at the same number
# (sys.set_int_max_str_digits), so printing any int a candidate returned costs milliseconds.
MAX_INT_DIGITS = 40_000
MAX_INT_BITS = int(MAX_INT_DIGITS * math.log2(10))
# Distinct values of one value that share one hash. Real data never has more than a few; crafted ints
# (x + k * (2**61 - 1)) or tuples can share a hash by the thousand.
MAX_SAME_HASH = 16


class Oversize(ValueError):
    """The candidate's value is beyond what the judge handles; the run fails with `output`."""


def encode(value, handles):
    """The wire form of `value`; objects that are not plain data go through `handles` (None: refuse)."""
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


def digits_of(n):
    """Decimal digits of |n|, within one, without converting it (which is quadratic)."""
    return max(1, int(abs(n).bit_length() * 0.30103) + 1)


class Decoder:
    """One value's decoding, counting its parts and the hashes of its hashable scalars and tuples."""

    def __init__(self, handle):
        self.handle = handle
        self.parts = 0
        self.by_hash = {}

    def value(self, wire, depth):
        self.parts += 1
        if self.parts > MAX_PARTS:
            raise Oversize('a value of more than %d parts' % MAX_PARTS)
        if depth > MAX_DEPTH:
            raise Oversize('a value nested more than %d deep' % MAX_DEPTH)
        t = type(wire)
        if t is list:
            return [self.value(v, depth + 1) for v in wire]
        if t is int:
            return self.hashed(self.int_of(wire)) if not -(1 << 61) < wire < (1 << 61) else wire
        if t is float:
            return self.hashed(wire)
        if t is not dict:
            return wire
        if len(wire) != 1:
            raise ValueError('bad value')
        ((tag, v),) = wire.items()
        if tag == 't':
            return self.hashed(tuple(self.value(x, depth + 1) for x in v))
        if tag == 'd':
            return {self.value(k, depth + 1): self.value(x, depth + 1) for k, x in v}
        if tag == 's':
            return set(self.value(x, depth + 1) for x in v)
        if tag == 'f':
            return self.hashed(frozenset(self.value(x, depth + 1) for x in v))
        if tag == 'i':
            if type(v) is not str:
                raise ValueError('bad int')
            if len(v) > MAX_INT_BITS // 4 + 4:  # refused before converting: hex digits give the size
                raise Oversize('an int of about %d digits (at most %d)' % (int(len(v) * 4 * 0.30103), MAX_INT_DIGITS))
            return self.hashed(self.int_of(int(v, 16)))
        if tag == 'x':
            return self.hashed(float(v))
        if tag == 'b':
            return bytes.fromhex(v)
        if tag == 'c':
            return complex(float(v[0]), float(v[1]))
        if tag == 'h':
            if type(v) is not int:
                raise ValueError('bad handle')
            return self.handle(v)
        raise ValueError('bad tag')

    def int_of(self, n):
        if n.bit_length() > MAX_INT_BITS:
            raise Oversize('an int of about %d digits (at most %d)' % (digits_of(n), MAX_INT_DIGITS))
        return n

    def hashed(self, value):
        """Keeps up to MAX_SAME_HASH distinct values per hash: a set or dict built from this value's
        parts, here or by a test, then costs at most that many comparisons per insertion."""
        try:
            key = hash(value)
        except TypeError:  # a tuple holding a list: it cannot be a set member or dict key
            return value
        seen = self.by_hash.get(key)
        if seen is None:
            self.by_hash[key] = [value]
        elif value not in seen:
            seen.append(value)
            if len(seen) > MAX_SAME_HASH:
                raise Oversize('more than %d distinct values with one hash' % MAX_SAME_HASH)
        return value


def decode_bounded(wire, handle):
    """Inverse of encode for what a run child sends: only plain built-in values (and handles via
    `handle`); Oversize for a value beyond the bounds above, ValueError (or TypeError, KeyError) for
    a malformed one."""
    return Decoder(handle).value(wire, 0)


def decode(wire, handle):
    """Inverse of encode for the trusted direction (the judge's arguments, as a run child reads them)."""
    if type(wire) is list:
        return [decode(v, handle) for v in wire]
    if type(wire) is not dict:
        return wire
    ((tag, v),) = wire.items()
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


def clip(text, n=300):
    return text if len(text) <= n else text[:n] + '…[%d chars]' % len(text)


def short_repr(value, limit=200):
    """A repr of at most about `limit` characters, at a cost bounded by `limit` whatever the value:
    long ints are described, not converted; containers stop at the budget."""
    if value is None:
        return None
    out = []
    budget = [limit]

    def put(text):
        out.append(text)
        budget[0] -= len(text)

    def walk(v, depth):
        if budget[0] <= 0:
            return
        t = type(v)
        if t is int or t is bool:
            put(repr(v) if t is bool or v.bit_length() <= 3 * limit else '<int of about %d digits>' % digits_of(v))
        elif t is str or t is bytes:
            put(repr(v[:budget[0]]) + ('…' if len(v) > budget[0] else ''))
        elif t in (list, tuple, set, frozenset, dict) and depth < 20:
            if not v:
                put({list: '[]', tuple: '()', set: 'set()', frozenset: 'frozenset()', dict: '{}'}[t])
                return
            put({list: '[', tuple: '(', set: '{', frozenset: 'frozenset({', dict: '{'}[t])
            for i, item in enumerate(v.items() if t is dict else v):
                if i:
                    put(', ')
                if budget[0] <= 0:
                    put('…')
                    break
                if t is dict:
                    walk(item[0], depth + 1)
                    put(': ')
                    walk(item[1], depth + 1)
                else:
                    walk(item, depth + 1)
            put({list: ']', tuple: ',)' if len(v) == 1 else ')', set: '}', frozenset: '})', dict: '}'}[t])
        elif t in (float, complex):
            put(repr(v))
        else:
            try:
                put(clip(repr(v), max(budget[0], 1)))
            except Exception:
                put('<unprintable>')

    walk(value, 0)
    return clip(''.join(out), limit)
