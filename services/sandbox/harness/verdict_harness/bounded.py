"""The judge's own arithmetic inside a test, bounded by the size of what it would build.

A test is trusted, but the values it computes with come from the candidate: `assert 2 ** f(2) == 4`
with f returning 10**9 would make the judge build a billion-bit int, and `'a' * f(2)` a gigabyte
string — the judge's time and memory, ending the job as ABORTED instead of the candidate's 0. So
each test's `**`, `<<` and `*` (and the builtin `pow`) go through the guards below, which estimate
the result's size from the operands before computing it and raise `TooLarge` past a bound: the test
fails with an error, charged to the candidate like any failing test. Sizes, not time, so the
verdict does not depend on the machine. Everything else a test does is computed as written."""

import ast
import builtins

# Bits of an int that `**` or `<<` may build (about 1.26 million decimal digits; milliseconds to make).
MAX_RESULT_BITS = 1 << 22
# Items (characters, bytes, elements) of a sequence that `*` may build by repetition.
MAX_REPEAT = 1 << 24

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


def install(namespace):
    """The guards, and `pow`, in a test namespace (a label's own `pow` in its setup wins)."""
    namespace.update(GUARDS)
    namespace.setdefault('pow', guarded_pow)
