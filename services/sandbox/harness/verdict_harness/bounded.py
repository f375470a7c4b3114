"""The judge's own work inside a test, bounded by the size of what it would build.

A test is trusted, but the values it computes with come from the candidate: `assert 2 ** f(2) == 4`
with f returning 10**9 would make the judge build a billion-bit int, and `'a' * f(2)` a gigabyte
string — the judge's time and memory, ending the job as ABORTED instead of the candidate's 0. So
each test's `**`, `<<` and `*` (and the builtin `pow`) go through the guards below, which estimate
the result's size from the operands before computing it and raise `TooLarge` past a bound: the test
fails with an error, charged to the candidate like any failing test. Sizes, not time, so the
verdict does not depend on the machine.

The rest of a test runs as written, with two backstops in the judge (judge.py): a CPU clock per
test, which stops a loop of Python code, and a cap on the judge's memory, which turns an allocation
bomb into a MemoryError. Neither stops one long call into C that allocates little, so the sources
of such calls are guarded here too: `math.factorial`, `comb`, `perm` and `prod` by the size of
their result, and a `range` longer than MAX_ITEMS and itertools' unbounded or combinatorial
iterators yield from Python, where the clock can stop them (`sum(range(f(2)))`)."""

import ast
import builtins
import itertools
import math
import types

# Bits of an int that `**` or `<<` may build (about 1.26 million decimal digits; milliseconds to make).
MAX_RESULT_BITS = 1 << 22
# Items (characters, bytes, elements) of a sequence that `*` may build by repetition.
MAX_REPEAT = 1 << 24
# Items of a range that C code (sum, sorted, list, ...) may take without the judge's clock seeing it.
MAX_ITEMS = 1 << 24

SEQUENCES = (str, bytes, bytearray, list, tuple)


class TooLarge(ArithmeticError):
    """The test would build a value beyond the bounds above from what the candidate returned."""


def _is_int(x):
    return isinstance(x, int)


def guarded_pow(a, b, mod=None):
    if mod is None and _is_int(a) and _is_int(b) and b > 0 and a not in (0, 1, -1):
        bits = (abs(a).bit_length() - (1 if (abs(a) & (abs(a) - 1)) == 0 else 0)) * b
        if bits > MAX_RESULT_BITS:
            raise TooLarge('%s ** %s would be an int of about %d bits (at most %d)' % (_short(a), _short(b), bits, MAX_RESULT_BITS))
    return builtins.pow(a, b) if mod is None else builtins.pow(a, b, mod)


def guarded_lshift(a, b):
    if _is_int(a) and _is_int(b) and a != 0 and b > 0 and abs(a).bit_length() + b > MAX_RESULT_BITS:
        raise TooLarge('%s << %s would be an int of about %d bits (at most %d)' % (_short(a), _short(b), abs(a).bit_length() + b, MAX_RESULT_BITS))
    return a << b


def guarded_mul(a, b):
    if isinstance(a, SEQUENCES) and _is_int(b):
        _check_repeat(a, b)
    elif isinstance(b, SEQUENCES) and _is_int(a):
        _check_repeat(b, a)
    return a * b


def _check_repeat(seq, n):
    if n > 0 and len(seq) * n > MAX_REPEAT:
        raise TooLarge('repeating %d items %s times would make %d (at most %d)' % (len(seq), _short(n), len(seq) * n, MAX_REPEAT))


def _short(n):
    """An int for a message, without converting a long one to decimal."""
    return str(n) if not _is_int(n) or abs(n).bit_length() <= 64 else '<int of %d bits>' % abs(n).bit_length()


def guarded_factorial(n):
    if _is_int(n) and n > 2 and n * (n.bit_length() - 1) > MAX_RESULT_BITS:
        raise TooLarge('factorial(%s) would be an int of over %d bits' % (_short(n), MAX_RESULT_BITS))
    return math.factorial(n)


def _check_choose(name, n, k):
    # k == n counts: perm(n) is n!, while comb(n, n) takes min(k, n - k) = 0 factors.
    if _is_int(n) and _is_int(k) and 0 < k <= n:
        taken = min(k, n - k) if name == 'comb' else k
        if taken * n.bit_length() > MAX_RESULT_BITS:
            raise TooLarge('%s(%s, %s) would be an int of up to %d bits (at most %d)' % (name, _short(n), _short(k), taken * n.bit_length(), MAX_RESULT_BITS))


def guarded_comb(n, k):
    _check_choose('comb', n, k)
    return math.comb(n, k)


def guarded_perm(n, k=None):
    _check_choose('perm', n, n if k is None else k)
    return math.perm(n, k)


def guarded_prod(iterable, *, start=1):
    """math.prod, one factor at a time in Python: the clock sees it, and the product's size is checked."""
    product = start
    for factor in iterable:
        if _is_int(product) and _is_int(factor) and product.bit_length() + factor.bit_length() > MAX_RESULT_BITS:
            raise TooLarge('the product would be an int of up to %d bits (at most %d)' % (product.bit_length() + factor.bit_length(), MAX_RESULT_BITS))
        product = product * factor
    return product


def _yielding(source):
    """Items of a C iterator, passed on from Python code, which the judge's clock can interrupt."""
    for item in source:
        yield item


class LongRange:
    """A range longer than MAX_ITEMS: the same answers as `range`, but iterated from Python."""

    __slots__ = ('_range',)

    def __init__(self, whole):
        self._range = whole

    def __iter__(self):
        return _yielding(self._range)

    def __reversed__(self):
        return _yielding(reversed(self._range))

    def __len__(self):
        return len(self._range)

    def __contains__(self, item):
        return item in self._range

    def __getitem__(self, key):
        return guarded_range_of(self._range[key]) if isinstance(key, slice) else self._range[key]

    def __eq__(self, other):
        return self._range == (other._range if isinstance(other, LongRange) else other)

    def __hash__(self):
        return hash(self._range)

    def __getattr__(self, name):
        return getattr(self._range, name)

    def __repr__(self):
        return repr(self._range)


def guarded_range_of(whole):
    try:
        length = len(whole)
    except OverflowError:
        return LongRange(whole)
    return whole if length <= MAX_ITEMS else LongRange(whole)


class _RangeType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, (range, LongRange))

    def __subclasscheck__(cls, sub):
        return issubclass(sub, (range, LongRange))


class guarded_range(metaclass=_RangeType):
    """`range` as a test sees it: the real one up to MAX_ITEMS, else a LongRange; both pass `isinstance(x, range)`."""

    def __new__(cls, *args):
        return guarded_range_of(range(*args))


def _guarded_module(module, replacements):
    guarded = types.ModuleType(module.__name__, module.__doc__)
    guarded.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith('__')})
    guarded.__dict__.update(replacements)
    return guarded


def _from_python(make):
    def guarded(*args, **kwargs):
        return _yielding(make(*args, **kwargs))
    guarded.__name__ = make.__name__
    return guarded


# What a test sees as `math` and `itertools` (judge.py): the real modules but for these.
MATH = _guarded_module(math, {'factorial': guarded_factorial, 'comb': guarded_comb, 'perm': guarded_perm, 'prod': guarded_prod})
ITERTOOLS = _guarded_module(itertools, {
    name: _from_python(getattr(itertools, name))
    for name in ('count', 'cycle', 'repeat', 'product', 'permutations', 'combinations', 'combinations_with_replacement')
})
MODULES = {'math': MATH, 'itertools': ITERTOOLS}

GUARDS = {'__verdict_pow__': guarded_pow, '__verdict_lshift__': guarded_lshift, '__verdict_mul__': guarded_mul}
_BY_OP = {ast.Pow: '__verdict_pow__', ast.LShift: '__verdict_lshift__', ast.Mult: '__verdict_mul__'}


class _Guard(ast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        name = _BY_OP.get(type(node.op))
        if name is None:
            return node
        call = ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=[node.left, node.right], keywords=[])
        return ast.copy_location(call, node)


def guard_tree(tree):
    """The test's syntax tree with its `**`, `<<` and `*` turned into calls of the guards."""
    return ast.fix_missing_locations(_Guard().visit(tree))


def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    """`import math` and `from itertools import ...` in a test or a label's setup give the guarded modules."""
    if level == 0 and name in MODULES:
        return MODULES[name]
    return builtins.__import__(name, globals, locals, fromlist, level)


# The builtins a test runs with: the real ones, but for these.
BUILTINS = dict(vars(builtins), pow=guarded_pow, range=guarded_range, __import__=guarded_import)


def install(namespace):
    """The guards and the guarded builtins in a test namespace (a label's setup may still define its own)."""
    namespace.update(GUARDS)
    namespace['__builtins__'] = BUILTINS
