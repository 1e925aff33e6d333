"""Which assignment a read sees (codemod/reaching.py): sure answers only."""

import ast

import pytest

from tfcompat_threads.codemod import reaching
from tfcompat_threads.codemod.scopes import Scopes


def seen(source: str) -> list:
    """What each read of `c` sees, for the first assignment of `c`."""
    tree = ast.parse(source)
    scopes = Scopes(tree)
    first = next(n for n in ast.walk(tree) if type(n) is ast.Assign and n.targets[0].id == "c")
    scope = scopes.scope_of(first)
    bindings = scope.bindings["c"]
    reads = sorted({id(r): r for b in bindings for r in b.references}.values(), key=lambda n: n.lineno)
    return [reaching.seen_binding(scopes.parents, r, first, bindings) for r in reads]


@pytest.mark.parametrize("source,expected", [
    ("c = 1\nuse(c)\nc = 2\nuse(c)\n", ["mine", "other"]),
    ("c = 1\nif x:\n    use(c)\n    c = 2\n    use(c)\nuse(c)\n", ["mine", "other", None]),
    ("c = 1\nfor i in x:\n    use(c)\n    c = 2\n", [None]),
    ("c = 1\nfor i in x:\n    use(c)\nc = 2\n", ["mine"]),
    ("c = 1\ndef f():\n    use(c)\nc = 2\n", ["deferred"]),
    ("def g():\n    c = 1\n    with x:\n        use(c)\n    c = 2\n    use(c)\n", ["mine", "other"]),
])
def test_a_read_sees_the_assignment_that_surely_ran_last(source, expected):
    assert seen(source) == expected
