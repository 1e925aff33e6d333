"""Who else reads a module-level name: what a fix must know before it
deletes a binding (`sess = tf.Session(config=config)`).

A name's own scope is the analysis' business (its references). Beyond it:
- the repository's other modules: `from m import name`, `import m` then
  `m.name`, `from m import *` (the names `__all__` lists; without it every
  public name), and names imported so passed on again (re-exports);
- the repository's notebooks that import the module (not followed: named);
- `__all__` of the module itself (the name is its public interface);
- a dynamic lookup in the module that could reach it: `eval`, `exec`,
  `globals()`, `locals()` and `vars()` at module level, `getattr` or
  `vars` on the module (`sys.modules[__name__]`, `sys.modules[...]`).

A reader with reads (`Reader.reads`) is followed by the analysis as a read
in its scope is; one without is named by the finding, whose fix then
leaves the binding alone.

    setup_tf.py   sess = tf.InteractiveSession(config=config)
    use.py        from setup_tf import sess
                  sess.run(op)
    readers(<analysis of setup_tf.py>, "sess")
        -> [Reader("use.py:1", "from setup_tf import sess", <analysis of use.py>, [sess at line 2])]
"""

from __future__ import annotations

import ast
import re
import weakref
from typing import NamedTuple

from .index import DYNAMIC

MAX_REEXPORTS = 3  # modules a name is followed through as imported and imported again


class Reader(NamedTuple):
    place: str
    """`file:line` (a notebook: `file:cell N`)."""
    what: str
    """How it reads the name, as a finding says it."""
    analysis: object | None
    """The module whose `reads` these are."""
    reads: list
    """The reads (Name, Attribute or Call nodes) to follow there; empty: the
    reader cannot be followed (the fix must not delete the name)."""


def readers(analysis, name: str, depth: int = 0) -> list[Reader]:
    """Readers of the module-level `name` of `analysis` outside its scope
    (asked once: again, its answer and what it asked the project are kept)."""
    project = analysis.project
    asked = _READERS.setdefault(analysis, {})
    key = (name, depth, project.generation if project is not None else 0)
    if key in asked:
        if project is not None and asked[key][1] is not None:
            project._replay(("readers", id(analysis), key), asked[key][1])
        return list(asked[key][0])
    if project is None:
        found = _readers(analysis, name, depth)
        asked[key] = (found, None)
    else:
        with project.recording() as log:
            found = _readers(analysis, name, depth)
        asked[key] = (found, log)
    return list(found)


_READERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _readers(analysis, name: str, depth: int) -> list[Reader]:
    found = [*_exported(analysis, name), *_dynamic(analysis, name)]
    project, path = analysis.project, analysis.path
    if project is None or path is None or path.suffix != ".py" or depth > MAX_REEXPORTS:
        return found
    stem = path.parent.name if path.name == "__init__.py" else path.stem
    if not stem.isidentifier():  # no import statement can name it
        return found
    naming, notebooks = _naming_module(analysis, stem)
    candidates = naming & set(project.mentioning(name, exclude=path)) if naming else set()
    if path.name == "__init__.py":  # `from . import name` names no module
        candidates |= {p for p in project.mentioning(name, exclude=path) if path.parent in p.parents}
    words = [re.compile(rb"\b%s\b" % re.escape(word.encode()))
             for word in ((name,) if path.name == "__init__.py" else (stem, name))]
    for other_path in sorted(candidates):
        data = project.read(other_path)  # its bytes decide: noted, as the analysis' reads are
        if data is None or not all(word.search(data) for word in words):
            continue  # `train_3` in `train_33`, `sess` in `session`
        other = project.analysis(other_path)
        if other is not None:
            found += _importers(other, analysis, name, depth)
    if notebooks:
        for notebook in sorted(notebooks & set(project.notebooks_mentioning(name))):
            found += _notebook_importers(project, notebook, stem, name)
    return found


_NAMING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _naming_module(analysis, stem: str) -> tuple[set, set]:
    """The other modules and the notebooks of the repository that name the
    module (once per analysis: most name none, and the other questions
    are then not asked)."""
    project = analysis.project
    if analysis in _NAMING:
        project._replay(("naming", id(analysis)), _NAMING[analysis][2])  # a result depends on its answers
        return _NAMING[analysis][:2]
    with project.recording() as asked:  # (the answers go to every recording under way, too)
        modules = set(project.mentioning(stem, exclude=analysis.path))
        notebooks = set(project.notebooks_mentioning(stem))
    _NAMING[analysis] = (modules, notebooks, asked)
    return modules, notebooks


def _place(analysis, node) -> str:
    return f"{analysis.path.name if analysis.path else 'line'}:{node.lineno}"


def _exported(analysis, name: str) -> list[Reader]:
    """`__all__` lists it: whoever imports the module may use it."""
    for node in analysis.module.body:
        targets = node.targets if type(node) is ast.Assign else [node.target] if type(node) in (
            ast.AnnAssign, ast.AugAssign) else []
        if any(type(t) is ast.Name and t.id == "__all__" for t in targets):
            listed = analysis.literal(node.value)
            if not isinstance(listed, (list, tuple)) or name in listed:
                return [Reader(_place(analysis, node), "`__all__` exports it", None, [])]
    return []


def all_names(analysis) -> list[str] | None:
    """What `from <module> import *` takes from it: `__all__` when it is a
    literal, else None (every public name)."""
    for node in analysis.module.body:
        if type(node) is ast.Assign and any(type(t) is ast.Name and t.id == "__all__" for t in node.targets):
            listed = analysis.literal(node.value)
            return list(listed) if isinstance(listed, (list, tuple)) else None
    return None


def _dynamic(analysis, name: str) -> list[Reader]:
    """Lookups by a computed name in the module that could reach `name`."""
    found = []
    module_scope = analysis.names.module_scope
    for node in _dynamic_nodes(analysis):
        if type(node) is ast.Call:
            function = _dynamic_function(analysis, node.func)
            if function in ("locals", "vars") and not node.args and analysis.scope_of(node) is not module_scope:
                continue  # a function's own names
            if function in ("eval", "exec") and not _may_read(node, name, function):
                continue
            if function in _NAMESPACES and not node.args and (
                    _writes_a_key(analysis, node) or _looked_up_key(analysis, node) not in (None, name)):
                continue  # (a module's `locals()` / `vars()` is its globals())
            if function in ("__import__", "import_module") and not _imports_itself(analysis, node):
                continue
            found.append(Reader(_place(analysis, node), f"{function}() may read it", None, []))
        elif node.attr in _FRAME_NAMESPACES:
            found.append(Reader(_place(analysis, node), f"`.{node.attr}` may read it", None, []))
        elif "sys.modules" in analysis.qnames(node):
            key = _subscript_key(analysis, node, any_key=True)
            stem = analysis.path.stem if analysis.path else ""
            if key is None or (key is not _NO_KEY and (key == "__main__" or key.rpartition(".")[2] == stem)):
                found.append(Reader(_place(analysis, node), "sys.modules may reach it", None, []))
    return found


_FRAME_NAMESPACES = ("f_globals", "f_locals")
"""A frame's namespaces (`sys._getframe().f_globals`, `inspect.currentframe()`): a lookup by any name."""
_CALLED = (*DYNAMIC, "__import__", "import_module")


def _dynamic_nodes(analysis) -> list[ast.AST]:
    """The calls that may be a dynamic lookup (of a builtin that reads names,
    also through `builtins.`, `from builtins import ... as`, or a name bound
    only to one: `e = eval`), the module's `.modules` and frame namespaces, in
    walk order (each module's list made once)."""
    known = _DYNAMIC_NODES.get(analysis)
    if known is not None:
        return known
    index = analysis.index
    names = set(_CALLED)
    for function in _CALLED:  # `e = eval`, `e = builtins.eval`: the names they bind
        for node in (*index.names(function), *index.loads_of(function)):
            holder = analysis.parents.get(node)
            if type(holder) is ast.Assign and holder.value is node:
                names.update(t.id for t in holder.targets if type(t) is ast.Name)
    for node in analysis.imports:  # `from builtins import eval as e`
        if type(node) is ast.ImportFrom and node.module in ("builtins", "importlib"):
            names.update(alias.asname or alias.name for alias in node.names if alias.name in _CALLED)
    calls = {id(call): call for name in names for call in index.calls_named(name)
             if _dynamic_function(analysis, call.func) is not None}
    others = [node for node in index.dynamic if type(node) is ast.Attribute]
    others += [node for attr in _FRAME_NAMESPACES for node in index.loads_of(attr)]
    known = sorted([*calls.values(), *others], key=lambda node: (node.lineno, node.col_offset))
    _DYNAMIC_NODES[analysis] = known
    return known


_DYNAMIC_NODES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _dynamic_function(analysis, func: ast.AST, depth: int = 0) -> str | None:
    """The builtin that reads names by a computed key (or imports by one) a
    callee is: `eval`, `builtins.eval`, `__builtins__.eval`, an import of it
    under another name, `importlib.import_module`, or a name bound only to
    one of these; None for anything else."""
    for qualified in analysis.qnames(func):
        module, _, last = qualified.rpartition(".")
        if last in _CALLED and module in ("builtins", "importlib"):
            return last
    if type(func) is ast.Attribute and type(func.value) is ast.Name and func.value.id == "__builtins__" \
            and func.attr in _CALLED:
        return func.attr
    if type(func) is ast.Name and depth < 3:
        scope = analysis.scope_of(func)
        bindings = scope.visible(func.id) if scope is not None else []
        holders = [analysis.parents.get(b.node) for b in bindings]
        if bindings and all(b.kind == "assign" and type(h) is ast.Assign for b, h in zip(bindings, holders)):
            found = {_dynamic_function(analysis, h.value, depth + 1) for h in holders}
            if len(found) == 1 and None not in found:
                return found.pop()
    return None


def _imports_itself(analysis, call: ast.Call) -> bool:
    """`__import__(__name__)`, `import_module(<not a literal>)` or of the
    module's own name: the module object, whose names any attribute reads."""
    if not call.args:
        return False
    argument = call.args[0]
    if type(argument) is not ast.Constant or not isinstance(argument.value, str):
        return True
    stem = analysis.path.stem if analysis.path else ""
    return argument.value.rpartition(".")[2] in (stem, "__main__")


def _may_read(call: ast.Call, name: str, function: str) -> bool:
    """eval/exec of a literal that does not name it (as a name, an attribute
    or a string) and looks nothing up by a computed name cannot read it."""
    if len(call.args) != 1 or call.keywords or type(call.args[0]) is not ast.Constant:
        return True
    code = call.args[0].value
    if not isinstance(code, str):
        return True
    try:
        tree = ast.parse(code, mode="eval" if function == "eval" else "exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return True
    for node in ast.walk(tree):
        kind = type(node)
        if (kind is ast.Name and node.id in (name, *_CALLED, "__builtins__", "builtins")) or (
                kind is ast.Attribute and node.attr in (name, "modules", *_CALLED, *_FRAME_NAMESPACES)) or (
                kind is ast.Constant and node.value == name) or kind in (ast.Import, ast.ImportFrom):
            return True
    return False


_NO_KEY = object()


def _writes_a_key(analysis, node: ast.AST) -> bool:
    """`node["k"] = v` / `del node["k"]` with a literal key: a write, which
    reads nothing (`globals()['_CACHE'] = model`)."""
    parent = analysis.parents.get(node)
    return (type(parent) is ast.Subscript and parent.value is node and type(parent.ctx) in (ast.Store, ast.Del)
            and isinstance(analysis.literal(parent.slice), str))


_NAMESPACES = ("globals", "locals", "vars")
"""The calls that return a namespace (a function's own `locals()` is passed over above)."""


def _looked_up_key(analysis, node: ast.AST):
    """The one key a namespace is asked for: `ns["k"]`, `ns.get("k")`, or
    `"k" in ns` (a notebook's `reuse = 'net' in locals()`, which reads no
    value); else None."""
    parent = analysis.parents.get(node)
    if (type(parent) is ast.Compare and node in parent.comparators and len(parent.ops) == 1
            and type(parent.ops[0]) in (ast.In, ast.NotIn)):
        key = analysis.literal(parent.left)
        return key if isinstance(key, str) else None
    return _subscript_key(analysis, node)


def _subscript_key(analysis, node: ast.AST, any_key: bool = False):
    """The key of `node[k]` / `node.get(k)` (`globals()["k"]`): the literal
    string, or None (computed). Any other use of `node` (`"k" in
    sys.modules`): None, or with `any_key` _NO_KEY (no lookup)."""
    parent = analysis.parents.get(node)
    key = _NO_KEY
    if type(parent) is ast.Subscript and parent.value is node and type(parent.ctx) is ast.Load:
        key = analysis.literal(parent.slice)
    elif type(parent) is ast.Attribute and parent.attr in ("get", "__getitem__"):
        holder = analysis.parents.get(parent)
        if type(holder) is ast.Call and holder.func is parent and holder.args:
            key = analysis.literal(holder.args[0])
    elif not any_key:
        return None
    if key is _NO_KEY:
        return _NO_KEY if any_key else None
    return key if isinstance(key, str) else None


def _importers(other, home, name: str, depth: int) -> list[Reader]:
    """The reads of `name` of module `home` in module `other`."""
    found = []
    for node, alias, source, submodule in _imports_of(other, home.path, name):
        if type(node) is ast.ImportFrom:
            written = f"from {'.' * node.level}{node.module or ''} import"
            scope = other.scope_of(node)
            if source == home.path and alias.name == "*":
                listed = all_names(home)
                if (listed is not None and name not in listed) or (listed is None and name.startswith("_")):
                    continue
                reads = [n for n in other.index.names(name) if type(n.ctx) is ast.Load and other.names.unbound(n)]
                bound = name
            elif source == home.path and alias.name == name:
                bound = alias.asname or alias.name
                reads = [r for b in scope.bindings.get(bound, []) if b.node is node for r in b.references]
            else:
                if submodule == home.path:  # `from pkg import module`: read as `module.name`
                    found += _attribute_reads(other, node, alias.asname or alias.name, name)
                continue
            found.append(Reader(_place(other, node), f"{written} {alias.name}", other, _sorted(reads)))
            if scope is other.names.module_scope:  # passed on: imported from `other` elsewhere
                found += readers(other, bound, depth + 1)
        elif submodule == home.path:
            bound = alias.asname or alias.name.split(".")[0]
            found += _attribute_reads(other, node, bound, name, "" if alias.asname else alias.name)
    return found


_IMPORTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _imports_of(other, path, name: str) -> list[tuple]:
    """(import, alias, file of the module it imports from, file of the module
    the alias itself names) of the imports of `other` that may read `name`
    of the file `path`: `from <it> import name` or `*`, and the aliases that
    name it as a module, in source order. Each import is resolved once per
    analysis; what that asked the project is noted again at each question."""
    project = other.project
    known = _IMPORTS.get(other)
    if known is None or known[0] != project.generation:
        members: dict = {}  # (file imported from, alias name) -> entries
        modules: dict = {}  # file the alias names -> entries
        with project.recording() as log:
            number = 0
            for node in other.imports:
                source = None
                if type(node) is ast.ImportFrom:
                    source = project.module_file(other.path, node.module or "", node.level)
                for alias in node.names:
                    submodule = None
                    if type(node) is ast.Import:
                        submodule = project.module_file(other.path, alias.name, 0)
                    elif alias.name != "*":
                        qualified = f"{node.module}.{alias.name}" if node.module else alias.name
                        submodule = project.module_file(other.path, qualified, node.level)
                    entry = (number, (node, alias, source, submodule))
                    number += 1
                    if source is not None:
                        members.setdefault((source, alias.name), []).append(entry)
                    if submodule is not None:
                        modules.setdefault(submodule, []).append(entry)
        known = _IMPORTS[other] = (project.generation, members, modules, log)
    _, members, modules, asked = known
    project._replay(("imports", id(other)), asked)
    found = dict([*members.get((path, "*"), ()), *members.get((path, name), ()), *modules.get(path, ())])
    return [found[number] for number in sorted(found)]


def _attribute_reads(other, node, bound: str, name: str, dotted: str = "") -> list[Reader]:
    """`module.name` where `module` is the binding `node` makes; any other
    use of the module object (`getattr(module, ...)`, passed along) may
    read it too and is not followed."""
    scope = other.scope_of(node)
    reads, opaque = [], []
    for binding in scope.bindings.get(bound, []) if scope is not None else []:
        if binding.node is not node:
            continue
        for reference in binding.references:
            target: ast.AST = reference
            for part in dotted.split(".")[1:]:  # `import pkg.module`: `pkg.module.name`
                parent = other.parents.get(target)
                if not (type(parent) is ast.Attribute and parent.attr == part):
                    target = None
                    break
                target = parent
            if target is None:
                continue
            parent = other.parents.get(target)
            if type(parent) is ast.Attribute and parent.value is target:
                if parent.attr == name:
                    reads.append(parent)
            else:
                opaque.append(target)
    found = [Reader(_place(other, r), f"it reads {other.code(r)}", other, [r]) for r in _sorted(reads)]
    found += [Reader(_place(other, r), f"the module `{other.code(r)}` is used as a value", None, [])
              for r in _sorted(opaque)[:1]]
    return found


def _notebook_importers(project, path, stem: str, name: str) -> list[Reader]:
    """A notebook that imports the module (or `%run`s it) and then names
    `name`: named, not followed."""
    import json

    data = project.read(path)
    try:
        document = json.loads(data.decode("utf-8-sig")) if data is not None else None
    except (UnicodeDecodeError, ValueError):
        return []
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list):
        return []
    # [ \t]: within a line (linear); %run: the module's names become the notebook's
    imports = re.compile(rf"^[ \t]*(from[ \t]+[\w.]*\b{re.escape(stem)}[ \t]+import\b"
                         rf"|import[ \t][\w., \t]*\b{re.escape(stem)}\b"
                         rf"|%run[ \t].*\b{re.escape(stem)}\b)", re.MULTILINE)
    word = re.compile(rf"\b{re.escape(name)}\b")
    number = 0
    imported = None
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        number += 1
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        if imported is None and imports.search(text):
            imported = number
        if imported is not None and word.search(text):
            return [Reader(f"{path.name}:cell {number}", f"it imports or runs {stem} (cell {imported})", None, [])]
    return []


def _sorted(nodes: list) -> list:
    return sorted({id(n): n for n in nodes}.values(), key=lambda n: (n.lineno, n.col_offset))
