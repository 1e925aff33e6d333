"""Resolving calls: the function a call calls, in this module or another of
the repository (`resolve_function`), the calls of a function from other
modules (`calls_elsewhere`), and code outside the repository (`outside`).

    resolve_function(analysis, <Name make_session>)  ->  (<analysis of utils.py>, <def make_session>)
"""

from __future__ import annotations

import ast
import re
import sys
import textwrap

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
LIBRARIES = ("tensorflow.", "keras.", "tf_keras.", "tfcompat_threads.")  # their attributes are theirs


def outside_calls(analysis, calls: list[ast.Call]) -> str:
    """"which is code of `<module>`, a module the repository does not have"
    when every call calls code of that one module ("" otherwise)."""
    modules = {outside(analysis, call.func) for call in calls}
    if len(modules) != 1 or None in modules:
        return ""
    return f"which is code of `{modules.pop()}`, a module the repository does not have"


def outside(analysis, node: ast.AST, depth: int = 0) -> str | None:
    """The top-level module a callable or object comes from when that
    module is not the repository's (nor TensorFlow's, Keras', this
    package's or the standard library's): `lib.f`, `from lib import f`,
    `lib.Logger(...)`, attributes of those, and names or `self.<attr>`
    bound only to those (or to None). None when it is not known to be
    outside: a name also bound to a def, a class or a parameter (a
    fallback `def` under `except ImportError:`) may be code of the
    repository."""
    if depth > 3 or analysis.project is None or analysis.path is None:
        return None
    if type(node) is ast.Call:
        return outside(analysis, node.func, depth + 1)
    if type(node) is ast.Attribute:
        stores = analysis.self_attribute(node)  # `self.<attr>`: what the class stores there
        if stores is None:
            return outside(analysis, node.value, depth)  # an attribute of something outside is outside
        bound = [(s, "assign", None) for s in stores[1]]
    elif type(node) is ast.Name:
        scope = analysis.scope_of(node)
        bound = [(b.node, b.kind, b.qualified) for b in scope.visible(node.id)] if scope is not None else []
    else:
        return None
    modules = set()
    for target, kind, qualified in bound:  # each: an import, or an assignment of None or of a value
        holder = analysis.parents.get(target)
        if kind == "import":
            modules.add(_outside_module(analysis, qualified) if qualified else None)
        elif kind == "assign" and type(holder) is ast.Assign:
            if not (type(holder.value) is ast.Constant and holder.value.value is None):
                modules.add(outside(analysis, holder.value, depth + 1))
        else:
            return None  # a def, a class, a parameter, a loop variable ...
    return modules.pop() if len(modules) == 1 and None not in modules else None


def _outside_module(analysis, qualified: str) -> str | None:
    top = qualified.split(".")[0]
    if not top or f"{top}." in LIBRARIES or top in sys.stdlib_module_names:
        return None
    if analysis.project.module_file(analysis.path, top) is not None or analysis.project.has_module(top):
        return None
    return top


def resolve_function(analysis, func: ast.AST, one_return: bool = False):
    """(analysis, def) of the function a call calls (a class: its
    __init__), in this module or another of the repository; None when
    it is not ours to read. `one_return`: only a function whose body is
    one `return` is wanted (a version check's helper): another module is
    analysed only when its bytes may define one so (`may_return_one`)."""
    if type(func) is ast.Name:
        scope = analysis.scope_of(func)
        bindings = scope.visible(func.id) if scope is not None else []
        if len(bindings) != 1:
            return None
        if bindings[0].kind in ("def", "class"):
            return _callable(analysis, bindings[0].node)
        qualified = bindings[0].qualified if bindings[0].kind == "import" else None
    elif type(func) is ast.Attribute:
        names = analysis.qnames(func)
        qualified = next(iter(names)) if len(names) == 1 else None
    else:
        return None
    if not qualified or analysis.project is None or analysis.path is None or qualified.startswith("tensorflow"):
        return None
    level = len(qualified) - len(qualified.lstrip("."))
    parts = qualified[level:].split(".")
    if len(parts) < 2:
        return None
    path = analysis.project.module_file(analysis.path, ".".join(parts[:-1]), level)
    if path is None or (one_return and not may_return_one(analysis.project.read(path), parts[-1],
                                                           analysis.project.told)):
        return None
    other = analysis.project.analysis(path)
    return exported(other, parts[-1]) if other is not None else None


def may_return_one(data: bytes | None, name: str, told: dict | None = None) -> bool:
    """Whether a module's bytes may define `name` as a function whose body
    (after a docstring) is one `return` of a value: each `def name` in them
    is read alone, as far as its indented lines go, for ~1% of what reading
    and analysing the module costs. Where it cannot be told so (a star
    import, `global`, a def split by a backslash, a def that does not read
    alone, line endings other than newlines), it may. `told`: the answers
    so far (a Project's), by the bytes' identity: a module read again is
    told again."""
    if data is None:
        return True
    told = {} if told is None else told
    known = told.get((id(data), name))
    if known is None or known[0] is not data:
        known = told[(id(data), name)] = (data, _may_return_one(data, name))
    return known[1]


def _may_return_one(data: bytes, name: str) -> bool:
    if _STAR_IMPORT.search(data) or _split_def(data) or b"\r" in data or any(
            _GLOBAL_BEFORE.search(data[max(0, m.start() - 200): m.start()]) for m in _GLOBAL.finditer(data)):
        return True
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    lines = None
    for found in re.finditer(rf"def[ \t]+{re.escape(name)}\b", text):  # from the literal: at C speed
        line_start = text.rfind("\n", 0, found.start()) + 1
        lead = _DEF_LEAD.fullmatch(text, line_start, found.start())  # a def: at the start of its line
        if lead is None:
            continue
        if lines is None:
            lines = text.split("\n")
        first = text.count("\n", 0, found.start())
        indent = len(lead.group(1).expandtabs())
        last = first + 1
        while last < len(lines):
            line = lines[last].expandtabs()
            stripped = line.lstrip()
            if stripped and not stripped.startswith("#") and len(line) - len(stripped) <= indent:
                break
            last += 1
        try:
            tree = ast.parse(textwrap.dedent("\n".join(lines[first:last])))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return True
        if len(tree.body) != 1 or not isinstance(tree.body[0], _FUNCTIONS):
            return True
        body = tree.body[0].body
        if body and type(body[0]) is ast.Expr and type(body[0].value) is ast.Constant:
            body = body[1:]
        if len(body) == 1 and type(body[0]) is ast.Return and body[0].value is not None:
            return True
    return False


def exported(analysis, name: str, depth: int = 0):
    """(analysis, def) of a module-level function or class `name` of this
    module, also through its `from x import *` of the repository's modules."""
    bindings = analysis.names.module_scope.bindings.get(name, [])
    if len(bindings) == 1 and bindings[0].kind in ("def", "class"):
        return _callable(analysis, bindings[0].node)
    if bindings or depth > 2 or analysis.project is None:
        return None
    for node in analysis.module.body:
        if type(node) is ast.ImportFrom and any(a.name == "*" for a in node.names):
            path = analysis.project.module_file(analysis.path, node.module or "", node.level)
            other = analysis.project.analysis(path) if path is not None else None
            found = exported(other, name, depth + 1) if other is not None else None
            if found is not None:
                return found
    return None


def star_names(analysis) -> dict[str, str]:
    """The TensorFlow names this module's `from m import *` of the
    repository's modules bring: what m binds by an import of tensorflow
    (`import tensorflow as tf` in utils.py, then `from utils import *` and
    `tf.Session(...)` here), also what m's own star imports brought; the last
    star import of a name wins, as in Python. name -> qualified name."""
    from .readers import all_names

    found: dict[str, str | None] = {}
    for node in analysis.names.star_imports:
        path = analysis.project.module_file(analysis.path, node.module or "", node.level)
        other = analysis.project.analysis(path) if path is not None else None
        if other is None:
            continue
        listed = all_names(other)
        bound = other.names.module_scope.bindings
        for name in {*bound, *other.names.star_names}:
            if (name.startswith("_") and listed is None) or (listed is not None and name not in listed):
                continue
            bindings = bound.get(name)
            if not bindings:
                found[name] = other.names.star_names[name]
                continue
            qualified = {b.qualified if b.kind == "import" else None for b in bindings}
            one = next(iter(qualified)) if len(qualified) == 1 else None
            found[name] = one if one is not None and one.split(".")[0] == "tensorflow" else None
    return {name: qualified for name, qualified in found.items() if qualified is not None}


def returned_modules(analysis) -> dict:
    """`tf = import_tf(...)`: a name assigned the call of a function of the
    repository that imports tensorflow in its body and returns that module
    (bert-as-service sets its environment first): the target -> the module's
    qualified name. Only names the module reads attributes of are asked."""
    found = {}
    parents, first = analysis.parents, _first_parts()
    asked: dict[str, bool] = {}  # each identifier once: a name assigned in every method is looked at once
    for node in analysis.index.of_type(ast.Assign):
        if len(node.targets) != 1 or type(node.targets[0]) is not ast.Name or type(node.value) is not ast.Call:
            continue
        # `tf.Session`, `tf.compat.v1...`: an attribute a rule's TensorFlow name begins with
        identifier = node.targets[0].id
        if identifier not in asked:
            asked[identifier] = any(type(parents.get(name)) is ast.Attribute and parents[name].attr in first
                                    for name in analysis.index.names(identifier))
        if not asked[identifier]:
            continue
        target = resolve_function(analysis, node.value.func)
        qualified = _returned_module(target[1]) if target is not None else None
        if qualified is not None:
            found[node.targets[0]] = qualified
    return found


_FIRST_PARTS: frozenset[str] | None = None


def _first_parts() -> frozenset[str]:
    """The first part of every TensorFlow name a rule looks for (from the symbol tables)."""
    global _FIRST_PARTS
    if _FIRST_PARTS is None:
        from . import symbols as sym

        names = (*sym.TF1_ONLY, *sym.SHIM_NAMES, *sym.THREAD_SETTERS, *sym.SESSIONS, sym.CONFIG)
        _FIRST_PARTS = frozenset({name.split(".")[0] for name in names} | {"compat", "estimator", "contrib"})
    return _FIRST_PARTS


def _returned_module(function) -> str | None:
    """The tensorflow module a function imports and returns on every return, or None."""
    imported, returns = {}, []
    pending = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef, ast.Lambda)):
            continue  # their own imports and returns
        if type(node) is ast.Import:
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                imported[name] = alias.name if alias.asname else name
        elif type(node) is ast.Return:
            returns.append(node.value)
        pending.extend(ast.iter_child_nodes(node))
    names = {value.id if type(value) is ast.Name else None for value in returns}
    if len(names) != 1 or None in names:
        return None
    qualified = imported.get(next(iter(names)))
    return qualified if qualified is not None and qualified.split(".")[0] == "tensorflow" else None


def calls_elsewhere(analysis, function) -> list[tuple]:
    """(analysis, call) of the calls of a module-level function of this
    module from the repository's other modules."""
    if analysis.project is None or analysis.path is None or type(analysis.parents.get(function)) is not ast.Module:
        return []
    found = []
    for path in analysis.project.mentioning(function.name, exclude=analysis.path):
        other = analysis.project.analysis(path)
        if other is None:
            continue
        for node in other.index.calls_named(function.name):
            target = resolve_function(other, node.func)
            if target is not None and target[0].path == analysis.path and target[1].lineno == function.lineno:
                found.append((other, node))
    return found


def _callable(analysis, node):
    """A function, or a class's __init__ (what a call of the class runs)."""
    if isinstance(node, _FUNCTIONS):
        return analysis, node
    if type(node) is ast.ClassDef:
        init = next((m for m in node.body if isinstance(m, _FUNCTIONS) and m.name == "__init__"), None)
        return (analysis, init) if init is not None else None
    return None


_STAR_IMPORT = re.compile(rb"import[ \t]*\*")
_SPLIT_DEF = re.compile(rb"def[ \t]*\\")
_DEF_LEAD = re.compile(r"([ \t]*)(?:async[ \t]+)?")


def _split_def(data: bytes) -> bool:
    """A `def` then a backslash-continued line? The pattern begins with its
    literal, so it is searched for at C speed (with a leading `\\b` it was
    ~15x slower); the word's start is told from the byte before it."""
    for match in _SPLIT_DEF.finditer(data):
        before = data[match.start() - 1 : match.start()]
        if not (before.isalnum() or before == b"_"):  # ASCII word bytes, as `\b` in a bytes pattern
            return True
    return False


# A `global` statement where one can be: at a line's start, after `;`, or after a header's `:`
# (the word found at C speed, then what stands before it).
_GLOBAL = re.compile(rb"global[ \t]+[A-Za-z_]")
_GLOBAL_BEFORE = re.compile(rb"(?:\A|\n|[;:])[ \t]*\Z")
