"""The code verifier's stdout rule, kept apart from the processes so that it is testable on its own."""

import re
from decimal import Decimal

NUMBER = re.compile(r'[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z')


def outputs_match(got, expected):
    """Peer-majority lines (LiveCodeBench, rllm, SandboxFusion, open-r1, prime_code): the whole output
    stripped, split into lines, each line stripped, the same number of lines. A line that differs
    may still match token by token where both tokens are decimal numbers and
      - they are equal as decimals (2.5 == 2.50, 120 == 120.0: LiveCodeBench's Decimal rule), or
      - the expected token shows a fractional part and the output agrees with it to every digit it
        shows: |got - expected| <= half a unit in its last place (1.6666666666666667 for 1.666667).
    Case matters and there is no relative tolerance: 0.3333333 does not match 0.333333333."""
    g = got.replace('\r\n', '\n').strip().split('\n')
    e = expected.replace('\r\n', '\n').strip().split('\n')
    if len(g) != len(e):
        return False
    for a, b in zip(g, e):
        a, b = a.strip(), b.strip()
        if a == b:
            continue
        ta, tb = a.split(), b.split()
        if len(ta) != len(tb):
            return False
        for x, y in zip(ta, tb):
            if x != y and not numbers_match(x, y):
                return False
    return True


def numbers_match(got, expected):
    if not (NUMBER.match(got) and NUMBER.match(expected)):
        return False
    g, e = Decimal(got), Decimal(expected)
    if g == e:
        return True
    if '.' not in expected or 'e' in expected.lower():
        return False
    return abs(g - e) * 2 <= Decimal(1).scaleb(e.as_tuple().exponent)

