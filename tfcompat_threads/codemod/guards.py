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
import bisect
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


def contrib_import(analysis) -> ast.stmt | None:
    """The first import of `tensorflow.contrib` the module makes whatever
    runs (a statement of its own body, not under `try` or `if`): contrib is
    gone since TF 2.0, so the module imports on TF 1.x only."""
    for node in analysis.module.body:
        if type(node) is ast.Import and any(a.name == "tensorflow.contrib" or a.name.startswith("tensorflow.contrib.")
                                            for a in node.names):
            return node
        if type(node) is ast.ImportFrom and not node.level and node.module and (
                node.module == "tensorflow.contrib" or node.module.startswith("tensorflow.contrib.") or (
                    node.module in ("tensorflow", "tensorflow.compat.v1") and any(a.name == "contrib"
                                                                                 for a in node.names))):
            return node
    return None


_FAILED = (Undecided, ArithmeticError, ValueError, TypeError, IndexError, AttributeError, RecursionError)
MAX_PREDICATE_DEPTH = 3  # functions and names a test is evaluated through
_depth = [0]


def tf1_regions(analysis) -> list[tuple[int, int]]:
    """Text ranges [start, end) of the code that TF2 never runs: a branch
    the TensorFlow version decides (also through the repository's own
    predicates: `if not is_tf2():`, `if IS_TF1:`), the arm of a conditional
    expression whose other arm is the same name under tf.compat.v1, and a
    function called only from such code."""
    regions = []
    for node in analysis.ifs:
        nodes = list(ast.walk(node.test))  # walked once for both questions
        direct = _names_tensorflow(analysis, node.test, nodes=nodes)
        if not direct and not _may_be_predicate(nodes):
            continue
        try:
            on_tf2 = _truth(analysis, node.test, "2")
            if not direct and _truth(analysis, node.test, "1") == on_tf2:
                continue  # the repository's own test, which the TensorFlow version does not decide
        except _FAILED:
            continue
        branch = node.orelse if on_tf2 else node.body
        if branch:
            regions.append((analysis.source.start(branch[0]), analysis.source.end(branch[-1])))
    regions += _tf1_arms(analysis)
    if regions:
        regions += _called_only_from(analysis, regions)
    return sorted(regions)


def _may_be_predicate(nodes: list[ast.AST]) -> bool:
    """A test (its nodes) that may call the repository's own predicate or
    read its flag: a call without arguments, or a name."""
    return any((type(n) is ast.Call and not n.args and not n.keywords) or type(n) is ast.Name for n in nodes)


def _tf1_arms(analysis) -> list[tuple[int, int]]:
    """`tf.compat.v1.Session if has_compat else tf.Session`: the arm that is
    not the tf.compat.v1 name runs where the other cannot, TF1 (renaming it
    would make both arms the same and defeat the test)."""
    regions = []
    for node, symbol in analysis.references:
        arm, parent = node, analysis.parents.get(node)
        if type(parent) is ast.Call and parent.func is arm:
            arm, parent = parent, analysis.parents.get(parent)
        if type(parent) is not ast.IfExp or arm is parent.test or symbol.compat:
            continue
        other = parent.orelse if arm is parent.body else parent.body
        theirs = analysis.symbol(other.func if type(other) is ast.Call else other)
        if theirs is not None and theirs.compat and theirs.name == symbol.name:
            regions.append((analysis.source.start(arm), analysis.source.end(arm)))
    return regions


def _called_only_from(analysis, regions: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Functions every call of which is in TF1-only code (a private one, or
    one no other module calls): TF1-only too."""
    covered = Spans(regions)

    def inside(node) -> bool:
        return covered.holds(analysis.source.start(node))

    found: list[tuple[int, int]] = []
    sites_of: dict = {}  # each function's call sites, asked once for all three rounds
    elsewhere: dict = {}
    for _ in range(3):  # a function called only from one that is TF1-only
        more = False
        for function in analysis.index.functions:
            if inside(function):
                continue
            if function not in sites_of:
                sites_of[function] = analysis.call_sites(function)
            sites = sites_of[function]
            if not sites or not all(inside(site) for site in sites):
                continue
            if not function.name.startswith("_"):
                if function not in elsewhere:
                    elsewhere[function] = bool(analysis.calls_elsewhere(function))
                if elsewhere[function]:
                    continue
            span = (analysis.source.start(function), analysis.source.end(function))
            found.append(span)
            covered.add(span)
            more = True
        if not more:
            break
    return found


class Spans:
    """A union of text ranges [start, end): is an offset in one of them?"""

    def __init__(self, spans) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        for span in spans:
            self.add(span)

    def holds(self, offset: int) -> bool:
        index = bisect.bisect_right(self._starts, offset) - 1
        return index >= 0 and offset < self._ends[index]

    def meets(self, start: int, end: int) -> bool:
        """Does [start, end) overlap one of the ranges?"""
        index = bisect.bisect_right(self._ends, start)  # the first range that ends after `start`
        return index < len(self._starts) and self._starts[index] < end

    def add(self, span: tuple[int, int]) -> None:
        start, end = span
        if start >= end:
            return
        low = bisect.bisect_left(self._ends, start)  # the first range that ends at or after `start`
        high = bisect.bisect_right(self._starts, end)  # past the last one that starts at or before `end`
        if low < high:
            start, end = min(start, self._starts[low]), max(end, self._ends[high - 1])
        self._starts[low:high] = [start]
        self._ends[low:high] = [end]


def _truth(analysis, test: ast.expr, major: str) -> bool:
    return bool(_evaluate(analysis, test, major))


def _names_tensorflow(analysis, test: ast.expr, depth: int = 0, nodes: list[ast.AST] | None = None) -> bool:
    if nodes is None:
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
    found = analysis.resolve_function(call.func, one_return=True)
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
    if kind is ast.Name and type(node.ctx) is ast.Load:
        return _flag(analysis, node, major)
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
    if not node.args:
        return _predicate(analysis, func, major)
    if name in _VERSION_CALLS and len(args) == 1 and isinstance(args[0], str):
        from packaging.version import Version

        from ..versions import parse_version

        return _Comparable(parse_version(args[0]) if name != "Version" else Version(args[0]))
    raise Undecided


def _predicate(analysis, func: ast.expr, major: str):
    """The value of a call of the repository's own function that returns
    one expression (`def is_tf2(): return tf.__version__.startswith("2")`)."""
    target = analysis.resolve_function(func, one_return=True)
    if target is None or _depth[0] >= MAX_PREDICATE_DEPTH:
        raise Undecided
    where, function = target
    body = function.body[1:] if function.body and _is_docstring(function.body[0]) else function.body
    arguments = function.args
    if len(body) != 1 or type(body[0]) is not ast.Return or body[0].value is None or \
            arguments.args or arguments.posonlyargs or arguments.vararg or arguments.kwonlyargs or arguments.kwarg:
        raise Undecided
    return _remembered(where, body[0].value, major)


def _flag(analysis, node: ast.Name, major: str):
    """The value of a name assigned once (`IS_TF2 = tf.__version__ >= "2"`)."""
    scope = analysis.scope_of(node)
    bindings = scope.visible(node.id) if scope is not None else []
    holder = analysis.parents.get(bindings[0].node) if len(bindings) == 1 and bindings[0].kind == "assign" else None
    if type(holder) is not ast.Assign or len(holder.targets) != 1 or holder.targets[0] is not bindings[0].node \
            or _depth[0] >= MAX_PREDICATE_DEPTH:
        raise Undecided
    return _remembered(analysis, holder.value, major)


def _remembered(analysis, node: ast.expr, major: str):
    """The value of a predicate's or a flag's expression, one level deeper:
    evaluated once per analysis, depth and release (a module tests the same
    flag in hundreds of `if`s)."""
    key = (node, major, _depth[0])
    known = analysis.guard_values.get(key)
    if known is None:
        _depth[0] += 1
        try:
            known = (True, _evaluate(analysis, node, major))
        except _FAILED as error:
            known = (False, type(error))
        finally:
            _depth[0] -= 1
        analysis.guard_values[key] = known
    if known[0]:
        return known[1]
    raise known[1]


def _is_docstring(statement: ast.stmt) -> bool:
    return type(statement) is ast.Expr and type(statement.value) is ast.Constant and \
        isinstance(statement.value.value, str)


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
