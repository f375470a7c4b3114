"""Which tests can stream: one assert whose only reach into the candidate is one call of a name with
literal arguments, so the judge can send every test's call at once and keep the verdicts of one call
at a time."""

import ast

# Calls a test may make besides its one call into the candidate: none of them can reach the
# candidate through a handle (a handle has no __abs__, __float__, … and refuses bool()).
LOCAL_CALLS = frozenset({'abs', 'round', 'int', 'float', 'complex', 'str', 'repr', 'bool', 'isinstance', 'type'})
UNSTREAMABLE = (
    'BoolOp IfExp Lambda ListComp SetComp DictComp GeneratorExp NamedExpr Subscript Starred Await Yield YieldFrom'
).split()


def single_call(tree, fn_name):
    """(name, args, kwargs) when the test is one assert whose only reach into the candidate is a
    single call of a name with literal arguments, made exactly once; else None."""
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
        return None
    node = tree.body[0]
    if node.msg is not None and not isinstance(node.msg, ast.Constant):
        return None
    unstreamable = tuple(getattr(ast, name) for name in UNSTREAMABLE)
    call = None
    for sub in ast.walk(node.test):
        if isinstance(sub, unstreamable):
            return None
        if isinstance(sub, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in sub.ops):
            return None
        if isinstance(sub, ast.Attribute) and not (isinstance(sub.value, ast.Name) and sub.value.id == 'math'):
            return None
        if not isinstance(sub, ast.Call):
            continue
        func = sub.func
        if isinstance(func, ast.Attribute) or (isinstance(func, ast.Name) and func.id in LOCAL_CALLS and func.id != fn_name):
            continue
        if call is not None or not isinstance(func, ast.Name):
            return None
        if any(isinstance(a, ast.Starred) for a in sub.args) or any(k.arg is None for k in sub.keywords):
            return None
        try:
            call = (func.id, [ast.literal_eval(a) for a in sub.args], {k.arg: ast.literal_eval(k.value) for k in sub.keywords})
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    return call

