"""The codemod's own scope analysis (codemod/scopes.py, on CPython's `ast`)
against libcst's QualifiedNameProvider: the same import-qualified names for
every name and attribute read, on the fixtures, on shadowing cases, and on
standard-library code. Nodes of the two trees are matched by position."""

from __future__ import annotations

import ast
import sysconfig
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider, QualifiedNameProvider, QualifiedNameSource

from tfcompat_threads.codemod.scopes import Scopes, dotted

ROOT = Path(__file__).resolve().parent.parent
STDLIB = Path(sysconfig.get_paths()["stdlib"])

SHADOWING = '''
import tensorflow as tf
import numpy as np
from os import path as p

def uses_param(tf):
    return tf.ConfigProto()

def uses_local():
    tf = object()
    return tf.Session

def uses_global():
    return tf.Session

class Model:
    tf = None
    def method(self):
        return tf.ConfigProto()
    value = tf

def nested():
    import keras.backend as K
    def inner():
        return K.set_session
    return inner

def uses_global_decl():
    global tf
    tf = 1

squares = [tf.constant(i) for i in range(3)]
gen = (np for np in range(3))
lam = lambda tf: tf.Session
with open(p.join("a")) as tf2:
    pass
try:
    pass
except ImportError as np2:
    pass
if (n := np.zeros(3)) is not None:
    pass
for np3 in range(2):
    pass
'''


def _column(line: str, utf8_column: int) -> int:
    return len(line.encode("utf-8")[:utf8_column].decode("utf-8"))


def ours_and_libcst(source: str):
    """(code, our qualified names, libcst's) for every Name read and Attribute."""
    module = cst.parse_module(source)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    theirs = wrapper.resolve(QualifiedNameProvider)
    positions = wrapper.resolve(PositionProvider)
    tree = ast.parse(source)
    scopes = Scopes(tree)
    lines = source.splitlines()
    ours = {}
    for node in scopes.scopes:
        if type(node) is ast.Name and type(node.ctx) is ast.Load or type(node) is ast.Attribute:
            start = (node.lineno, _column(lines[node.lineno - 1], node.col_offset))
            end = (node.end_lineno, _column(lines[node.end_lineno - 1], node.end_col_offset))
            ours[(type(node).__name__, start, end)] = node
    for node, where in positions.items():
        if not isinstance(node, (cst.Name, cst.Attribute)):
            continue
        key = (type(node).__name__, (where.start.line, where.start.column), (where.end.line, where.end.column))
        mine = ours.get(key)
        if mine is None:
            continue  # an attribute's name, a keyword, a binding site: no read there
        value = theirs.get(node, ())
        value = value() if callable(value) else value
        expected = {q.name for q in value if q.source in (QualifiedNameSource.IMPORT, QualifiedNameSource.BUILTIN)}
        yield node, set(scopes.qualified_names(mine)), expected, module


def mismatches(source: str) -> list[str]:
    found = []
    for node, ours, expected, module in ours_and_libcst(source):
        if ours != expected and not _known_difference(node, expected):
            found.append(f"{module.code_for_node(node)!r}: ours {sorted(ours)} libcst {sorted(expected)}")
    return found


def _known_difference(node, expected) -> bool:
    # libcst qualifies relative imports ("..x"), and an attribute of a call or
    # a literal (`super().close` -> builtins.super, `"".join` -> builtins.None);
    # the codemod needs neither.
    root = node
    while isinstance(root, cst.Attribute):
        root = root.value
    # For an attribute of a builtin libcst stops at the builtin
    # (`bytes.maketrans` -> builtins.bytes); the codemod's answer is the full name.
    builtin_attribute = isinstance(node, cst.Attribute) and all(n.startswith("builtins.") for n in expected)
    return not isinstance(root, cst.Name) or builtin_attribute or any(n.startswith(".") for n in expected)


def test_shadowing_cases_match_libcst():
    assert mismatches(SHADOWING) == []


def test_shadowing_cases_resolve_as_python_does():
    scopes = Scopes(ast.parse(SHADOWING))
    found = [
        set(scopes.qualified_names(node))
        for node in sorted(scopes.scopes, key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
        if type(node) is ast.Attribute and dotted(node) in ("tf.ConfigProto", "tf.Session")
    ]
    assert found == [
        set(),  # def uses_param(tf): tf.ConfigProto
        set(),  # tf = object() in the function
        {"tensorflow.Session"},  # the module's tf, read in a function
        {"tensorflow.ConfigProto"},  # a method does not see the class's tf
        set(),  # lambda tf: tf.Session
    ]


def test_the_walk_is_iterative():
    """Deep nesting costs memory, not the interpreter's stack: the analysis
    runs under a recursion limit far below the tree's depth."""
    import sys

    source = "import tensorflow as tf\nx = " + "-" * 600 + "tf.ConfigProto()\n"
    tree = ast.parse(source)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100)
    try:
        scopes = Scopes(tree)
        [call] = [n for n in scopes.scopes if type(n) is ast.Call]
        names = scopes.qualified_names(call.func)
    finally:
        sys.setrecursionlimit(limit)
    assert names == {"tensorflow.ConfigProto"}


@pytest.mark.parametrize("folder", sorted(p for p in (ROOT / "fixtures").iterdir() if p.is_dir()), ids=lambda p: p.name)
def test_fixtures_match_libcst(folder):
    source = (folder / "input.py").read_bytes()
    assert mismatches(cst.parse_module(source).code) == []


def test_standard_library_sample_matches_libcst():
    files = sorted(STDLIB.glob("*.py"))[::12]
    problems = {}
    for path in files:
        try:
            found = mismatches(path.read_text(encoding="utf-8"))
        except (cst.ParserSyntaxError, UnicodeDecodeError, SyntaxError):
            continue
        if found:
            problems[path.name] = found[:3]
    assert problems == {}
