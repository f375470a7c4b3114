"""Which asserts stream (plans.single_call): one call of the entry point with literal arguments."""

import ast

import pytest

from verdict_harness.plans import single_call


def plan(source, fn='f'):
    return single_call(ast.parse(source), fn)


def test_one_call_with_literal_arguments_streams():
    assert plan('assert f([1, 2], k=3) == [2, 1]') == ('f', [[1, 2]], {'k': 3})
    assert plan('assert abs(f(0.5) - 1.25) < 1e-6') == ('f', [0.5], {})
    assert plan('assert not f("")') == ('f', [''], {})
    assert plan('assert math.isclose(f(2), 4.0)') == ('f', [2], {})
    # The entry point may shadow a local builtin: then it is the candidate's call.
    assert plan('assert str(3) == "3"', fn='str') == ('str', [3], {})


@pytest.mark.parametrize('source', [
    'assert f(1) == 1 and f(2) == 2',
    'assert f(1) == 1 or True',
    'assert f(x) == 1',
    'assert f(1)[0] == 1',
    'assert 1 in f(1)',
    'assert f(1).real == 1',
    'assert [f(i) for i in range(3)]',
    'assert f(*[1])',
    'assert f(**{"a": 1})',
    'x = f(1)\nassert x == 1',
    'assert g(f(1))',
    'assert f(1) == 1, message',
])
def test_other_shapes_do_not_stream(source):
    assert plan(source) is None
