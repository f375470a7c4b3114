"""The guards on a test's own `**`, `<<`, `*` and `pow`: the same results as Python within the bounds,
TooLarge (estimated from the operands, before computing) past them."""

import ast

import pytest

import itertools
import math
import resource
import time

from verdict_harness.bounded import ITERTOOLS, MATH, MAX_ITEMS, MAX_REPEAT, MAX_RESULT_BITS, LongRange, TooLarge, guard_tree, install, guarded_range
from verdict_harness.control import Halt, MemoryCap, JudgeClock


def run(test, **names):
    namespace = dict(names)
    install(namespace)
    exec(compile(guard_tree(ast.parse(test)), '<test>', 'exec'), namespace)
    return namespace


@pytest.mark.parametrize('test', [
    'assert 2 ** 10 == 1024',
    'assert 10 ** 39000 > 0',
    'assert 2 ** (MAX_RESULT_BITS - 1) > 0',
    'assert (-3) ** 3 == -27',
    'assert 2 ** -1 == 0.5',
    'assert 1 ** (10 ** 30) == 1 and 0 ** (10 ** 30) == 0 and (-1) ** (10 ** 30 + 1) == -1',
    'assert pow(3, 10 ** 30, 7) == pow(3, (10 ** 30) % 6, 7)',
    'assert 1 << 64 == 18446744073709551616',
    'assert "ab" * 3 == "ababab" and 3 * [0] == [0, 0, 0] and (1,) * 2 == (1, 1)',
    'assert 6 * 7 == 42 and 2.5 * 2 == 5.0',
    'assert [0] * -1 == []',
    'x = 3\nx *= 2\nassert x == 6',
])
def test_same_results_within_bounds(test):
    run(test, MAX_RESULT_BITS=MAX_RESULT_BITS)


@pytest.mark.parametrize('test', [
    'assert 2 ** f() == 4',
    'assert 3 ** f() > 0',
    'assert pow(2, f()) == 4',
    'assert (1 << f()) > 0',
    'assert "a" * f() == "aa"',
    'assert f() * [0] == [0]',
    'assert b"x" * f() == b""',
    'assert 2 ** (f() + 1) == 4',
])
def test_refused_past_bounds_before_computing(test):
    with pytest.raises(TooLarge):
        run(test, f=lambda: 10 ** 9)


def test_bounds_are_sizes():
    assert MAX_RESULT_BITS == 1 << 22 and MAX_REPEAT == 1 << 24
    with pytest.raises(TooLarge):
        run('x = "ab" * n', n=MAX_REPEAT // 2 + 1)
    run('x = "ab" * n', n=MAX_REPEAT // 2)


def test_a_label_pow_wins():
    namespace = {'pow': lambda a, b: 'mine'}
    install(namespace)
    exec('assert pow(2, 3) == "mine"', namespace)


@pytest.mark.parametrize('test', [
    'assert math.factorial(20) == 2432902008176640000 and math.factorial(0) == 1',
    'assert math.comb(10, 3) == 120 and math.comb(3, 10) == 0 and math.perm(5) == 120 and math.perm(5, 2) == 20',
    'assert math.prod([2, 3, 4]) == 24 and math.prod([]) == 1 and math.prod([1.5, 2], start=2) == 6.0',
    'assert math.isclose(math.sqrt(2) ** 2, 2) and math.pi > 3',
    'from math import factorial\nassert factorial(5) == 120',
    'import itertools\nassert list(itertools.permutations([1, 2, 3], 2)) == [(1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2)]',
    'assert list(itertools.islice(itertools.count(5, 2), 3)) == [5, 7, 9] and list(itertools.repeat(0, 2)) == [0, 0]',
    'assert list(itertools.product("ab", repeat=2)) == [("a", "a"), ("a", "b"), ("b", "a"), ("b", "b")]',
    'assert sum(range(10)) == 45 and list(range(3)) == [0, 1, 2] and isinstance(range(5), range)',
])
def test_guarded_calls_answer_as_the_real_ones(test):
    run('import math, itertools\n' + test)


@pytest.mark.parametrize('test, message', [
    ('math.factorial(n)', 'factorial'),
    ('factorial(n)', 'factorial'),
    ('math.comb(n, n // 2)', 'comb'),
    ('math.perm(n, 10 ** 6)', 'perm'),
    ('math.perm(n)', 'perm'),
    ('math.prod([2 ** 100000] * 50)', 'product'),
])
def test_result_size_refused_before_computing(test, message):
    with pytest.raises(TooLarge, match=message):
        run('import math\nfrom math import factorial\n' + test, n=10 ** 9)


def test_a_long_range_is_a_range_iterated_from_python():
    whole = range(3, 10 ** 12, 7)
    long = guarded_range(3, 10 ** 12, 7)
    assert isinstance(long, LongRange) and guarded_range(MAX_ITEMS) == range(MAX_ITEMS)
    assert len(long) == len(whole) and long[5] == whole[5] and long[-1] == whole[-1]
    assert (10 in long) == (10 in whole) and (17 in long) == (17 in whole)
    assert list(itertools.islice(long, 4)) == list(itertools.islice(whole, 4))
    assert list(itertools.islice(reversed(long), 2)) == list(itertools.islice(reversed(whole), 2))
    assert long.index(17) == whole.index(17) and long.step == 7 and long == whole
    assert list(long[:3]) == [3, 10, 17]
    assert list(guarded_range(2 ** 70)[-2:]) == [2 ** 70 - 2, 2 ** 70 - 1]
    # From Python, one item at a time: a generator, not range's C iterator.
    assert type(iter(long)).__name__ == 'generator'


def test_the_modules_a_test_sees():
    namespace = run('import math, itertools\nm, i = math, itertools')
    assert namespace['m'] is MATH and namespace['i'] is ITERTOOLS
    assert MATH.sqrt is math.sqrt and ITERTOOLS.chain is itertools.chain


def test_the_clock_stops_a_python_loop_and_ignores_a_late_signal():
    clock = JudgeClock()
    started = time.process_time()
    with pytest.raises(Halt) as halted:
        clock.start(0.05)
        try:
            while True:
                pass
        finally:
            clock.stop()
    assert halted.value.kind == 'time' and time.process_time() - started < 5
    # Stopped before its time: no signal; and a signal after stop() raises nothing.
    clock.start(10)
    clock.stop()
    clock._expired(None, None)


def test_the_memory_cap_turns_a_large_allocation_into_a_memory_error_and_is_lifted():
    before = resource.getrlimit(resource.RLIMIT_AS)
    with MemoryCap():
        with pytest.raises(MemoryError):
            'a'.center(MemoryCap.HEADROOM * 2)
        small = 'a'.center(1 << 20)
    assert len(small) == 1 << 20
    assert resource.getrlimit(resource.RLIMIT_AS) == before
