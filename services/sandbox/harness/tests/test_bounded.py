"""The guards on a test's own `**`, `<<`, `*` and `pow`: the same results as Python within the bounds,
TooLarge (estimated from the operands, before computing) past them."""

import ast

import pytest

from verdict_harness.bounded import MAX_REPEAT, MAX_RESULT_BITS, TooLarge, guard_tree, install


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
    assert namespace['pow'](2, 3) == 'mine'
