"""The code verifier's stdout rule (compare.outputs_match), without a sandbox."""

import pytest

from verdict_harness.compare import numbers_match, outputs_match


@pytest.mark.parametrize('got, expected', [
    ('3\n', '3'),
    ('  1 2 \r\n3\n\n', '1 2\n3'),
    ('2.50', '2.5'),
    ('120.0', '120'),
    ('1.6666666666666667', '1.666667'),
    ('0.5 x', '0.50 x'),
    ('-0.0', '0'),
])
def test_matches(got, expected):
    assert outputs_match(got, expected)


@pytest.mark.parametrize('got, expected', [
    ('3', '4'),
    ('1\n2', '1 2'),
    ('1 2', '1  2 3'),
    ('Yes', 'YES'),
    ('0.3333333', '0.333333333'),
    ('1.66667', '1.666667'),
    ('1e3', '1000.5'),
    ('', '0'),
    ('nan', 'nan0'),
])
def test_mismatches(got, expected):
    assert not outputs_match(got, expected)


def test_numbers_need_a_fractional_part_for_the_precision_rule():
    # 1000 and 1000.4 are not "equal to every digit shown": the expected token shows no fraction.
    assert not numbers_match('1000.4', '1000')
    assert numbers_match('1000.4', '1000.')
    assert numbers_match('1E400', '1.0e400')  # equal as decimals
    assert not numbers_match('1.01e2', '1.0e2')  # an exponent: equal decimals only


def test_a_huge_token_is_compared_in_linear_time():
    digits = '7' * 200_000
    assert outputs_match(digits, digits + '.0')
    assert not outputs_match(digits, digits[:-1] + '8')
