"""Code that never runs on TensorFlow 2: the branch of an `if` whose test
says which TensorFlow runs (`hasattr(tf, 'ConfigProto')`, `hasattr(tf,
'config')`, a comparison of `tf.__version__`, `tf2.enabled()` from
`tensorflow.python`, also through a helper of the repository that returns
one of these) and that TF2 does not take.
That code is right where it runs (TF1); the codemod leaves it alone (no
finding, no change).

A test is decided by evaluating it with TensorFlow 2.15 over a small
whitelist of operations (no user code runs) when it names TensorFlow.
"""

from __future__ import annotations

import ast
import operator

from . import symbols as sym

# Names that TF2's root module does not have: hasattr(tf, NAME) is false on TF2.
TF1_MARKERS = sym.TF1_ONLY | {
    "placeholder", "contrib", "variable_scope", "get_variable", "get_default_graph", "app", "flags",
    "logging", "Print", "train.Saver", "global_variables_initializer", "layers",
}
# Names that TF2's modules have: hasattr(tf, NAME) (or tf.config, ...) is true on TF2.
TF2_MARKERS = {
    "config", "compat", "function", "keras", "data", "distribute", "io", "math", "nn", "random", "saved_model",
    "summary", "debugging", "test", "train", "experimental", "set_memory_growth", "list_physical_devices",
    "threading", "v1", "v2",
}
# Functions that say whether TF2 behaviour is on: true on TF2 unless the
# program turned it off (disable_v2_behavior, not decided then).
TF2_PROBES = frozenset({"tensorflow.python.tf2.enabled", "tensorflow.__internal__.tf2.enabled"})
MAX_HELPERS = 2  # `def is_v2(): return tf2.enabled()`: helpers read through, nested at most this deep
_VERSIONS = {"1": "1.15.5", "2": "2.15.0"}
_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_VERSION_CALLS = ("LooseVersion", "StrictVersion", "Version", "parse", "parse_version")


class Undecided(Exception):
    pass


def tf1_regions(analysis) -> list[tuple[int, int]]:
    """Text ranges [start, end) of the statements that TF2 never runs."""
    regions = []
    for node in analysis.ifs:
        if not _names_tensorflow(analysis, node.test):
            continue
        try:
            on_tf2 = _truth(analysis, node.test, "2")
        except (Undecided, ArithmeticError, ValueError, TypeError, IndexError, AttributeError, RecursionError):
            continue
        branch = node.orelse if on_tf2 else node.body
        if branch:
            regions.append((analysis.source.start(branch[0]), analysis.source.end(branch[-1])))
    return sorted(regions)


def _truth(analysis, test: ast.expr, major: str) -> bool:
    return bool(_evaluate(analysis, test, major))


def _names_tensorflow(analysis, test: ast.expr, depth: int = 0) -> bool:
    nodes = list(ast.walk(test))
    if depth < MAX_HELPERS and any((found := _helper_return(analysis, n)) and _names_tensorflow(*found, depth + 1)
                                   for n in nodes if type(n) is ast.Call):
        return True
    imported = analysis.names.imported
    if not analysis.star_modules and not any(type(n) is ast.Name and n.id in imported for n in nodes):
        return False  # no name an import binds: no name of TensorFlow's (the commonest test)
    return any(type(n) in (ast.Name, ast.Attribute) and (_is_tensorflow(analysis, n) or _is_probe(analysis, n))
               for n in nodes)


def _is_tensorflow(analysis, node: ast.expr) -> bool:
    names = analysis.qnames(node)
    return bool(names) and names <= {"tensorflow", "tensorflow.compat.v1"} and "tensorflow" in names


def _is_probe(analysis, node: ast.expr) -> bool:
    return not TF2_PROBES.isdisjoint(analysis.qnames(node))


def _helper_return(analysis, call: ast.Call):
    """(analysis, expression) a call without arguments of a function of the
    repository returns, when its body is that one `return` (after a
    docstring); None otherwise."""
    if call.args or call.keywords or type(call.func) not in (ast.Name, ast.Attribute):
        return None
    found = analysis.resolve_function(call.func)
    if found is None:
        return None
    other, function = found
    body = function.body[1:] if function.body and type(function.body[0]) is ast.Expr and type(
        function.body[0].value) is ast.Constant else function.body
    if len(body) != 1 or type(body[0]) is not ast.Return or body[0].value is None or function.name == "__init__":
        return None
    return other, body[0].value


def _evaluate(analysis, node: ast.expr, major: str):
    kind = type(node)
    if kind is ast.Constant:
        return node.value
    if kind is ast.Attribute:
        chain = []
        root = node
        while type(root) is ast.Attribute:
            chain.append(root.attr)
            root = root.value
        path = ".".join(reversed(chain))
        if path in ("__version__", "VERSION", "version.VERSION") and _is_tensorflow(analysis, root):
            return _VERSIONS[major]
        if kind is ast.Attribute and type(node.value) is not ast.Name:
            base = _evaluate(analysis, node.value, major)
            if isinstance(base, str) and node.attr in ("startswith", "split", "strip"):
                return getattr(base, node.attr)
        raise Undecided
    if kind is ast.Subscript:
        base = _evaluate(analysis, node.value, major)
        index = _evaluate(analysis, node.slice, major) if type(node.slice) is not ast.Slice else slice(
            *(None if part is None else _evaluate(analysis, part, major)
              for part in (node.slice.lower, node.slice.upper, node.slice.step)))
        if not isinstance(base, (str, list, tuple)):
            raise Undecided
        return base[index]
    if kind is ast.Compare:
        left = _evaluate(analysis, node.left, major)
        for op, right_node in zip(node.ops, node.comparators):
            right = _evaluate(analysis, right_node, major)
            if type(op) not in _COMPARE or not _comparable(left, right):
                raise Undecided
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if kind is ast.BoolOp:
        values = [_truth(analysis, value, major) for value in node.values]
        return all(values) if type(node.op) is ast.And else any(values)
    if kind is ast.UnaryOp and type(node.op) is ast.Not:
        return not _truth(analysis, node.operand, major)
    if kind is ast.Tuple:
        return tuple(_evaluate(analysis, element, major) for element in node.elts)
    if kind is ast.Call:
        return _call(analysis, node, major)
    raise Undecided


def _call(analysis, node: ast.Call, major: str):
    if node.keywords or any(type(a) is ast.Starred for a in node.args):
        raise Undecided
    func = node.func
    if type(func) is ast.Name and func.id == "hasattr" and len(node.args) == 2 and "builtins.hasattr" in \
            analysis.qnames(func):
        target, name = node.args
        attribute = _evaluate(analysis, name, major)
        if not isinstance(attribute, str) or not _is_tensorflow(analysis, _root(target)):
            raise Undecided
        if attribute in TF1_MARKERS and target is _root(target):
            return major == "1"
        if attribute in TF2_MARKERS:
            return True
        raise Undecided
    if _is_probe(analysis, func) and not node.args:
        if any(s.name == "disable_v2_behavior" for _, s in analysis.calls):
            raise Undecided  # the program turns TF2 behaviour off: the probe says False on TF2 too
        return major == "2"
    helper = _helper_return(analysis, node)
    if helper is not None:
        return _evaluate(*helper, major)
    args = [_evaluate(analysis, arg, major) for arg in node.args]
    if type(func) is ast.Name and func.id in ("int", "float", "str", "tuple") and \
            f"builtins.{func.id}" in analysis.qnames(func):
        return {"int": int, "float": float, "str": str, "tuple": tuple}[func.id](*args)
    if type(func) is ast.Attribute and func.attr in ("startswith", "split", "strip"):
        base = _evaluate(analysis, func.value, major)
        if isinstance(base, str):
            return getattr(base, func.attr)(*args)
        raise Undecided
    name = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else ""
    if name in _VERSION_CALLS and len(args) == 1 and isinstance(args[0], str):
        from packaging.version import Version

        from ..versions import parse_version

        return _Comparable(parse_version(args[0]) if name != "Version" else Version(args[0]))
    raise Undecided


def _root(node: ast.expr) -> ast.expr:
    while type(node) is ast.Attribute:
        node = node.value
    return node


class _Comparable:
    """A parsed version, comparable with another."""

    def __init__(self, version) -> None:
        self.version = version

    def __lt__(self, other):
        return self.version < _version(other)

    def __le__(self, other):
        return self.version <= _version(other)

    def __gt__(self, other):
        return self.version > _version(other)

    def __ge__(self, other):
        return self.version >= _version(other)

    def __eq__(self, other):
        return self.version == _version(other)

    def __ne__(self, other):
        return self.version != _version(other)

    __hash__ = None


def _version(other):
    if isinstance(other, _Comparable):
        return other.version
    raise Undecided


def _comparable(left, right) -> bool:
    kinds = (type(left), type(right))
    return (kinds[0] is kinds[1] and kinds[0] in (str, int, float, tuple, bool)) or \
        (isinstance(left, (int, float)) and isinstance(right, (int, float))) or \
        (isinstance(left, _Comparable) and isinstance(right, _Comparable))
