"""The rules' documentation on a Python the linter does not run on (3.7 to
3.9): what `rule` prints there, read from the rule modules without importing
them (their checks need the analysis, which needs Python 3.10).

`codemod/rules/__init__.py` is run as it is but for `_load`: each rule is
made, on its `Rule`, from the class-level assignments of literals in its
module's source (code, name, severity and the documentation), read with the
tokenizer, which reads newer syntax than the running Python parses. The
documentation stays in the rule modules, its one place; `expand`, the
redirects and the anchors are the package's own code.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

FOLDER = Path(__file__).resolve().parent.parent / "codemod" / "rules"
_SKIPPED = frozenset({tokenize.NL, tokenize.COMMENT})


def rules_namespace() -> dict:
    """The names of `tfcompat_threads.codemod.rules` (RULES, expand, UnknownCode, ...)."""
    path = FOLDER / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    body = [node for node in tree.body if not (isinstance(node, ast.FunctionDef) and node.name == "_load")]
    package = "tfcompat_threads.codemod.rules"
    namespace: dict = {"__name__": package, "__package__": package, "__file__": str(path)}
    namespace["_load"] = lambda: _load(namespace)
    exec(compile(ast.Module(body=body, type_ignores=[]), str(path), "exec"), namespace)  # noqa: S102 (ours)
    return namespace


def _load(namespace: dict) -> dict:
    rules = {}
    for module in namespace["_MODULES"]:
        name, fields = _class_fields(FOLDER / f"{module}.py", namespace)
        rule = type(name, (namespace["Rule"],), fields)()
        rules[rule.code] = rule
    return rules


def _class_fields(path: Path, namespace: dict) -> tuple[str, dict]:
    """The name and the literal class-level assignments of the module's `Rule`
    subclass; a name it imports (`code = UNMAPPABLE_FIELD`) is read from the
    module that assigns it."""
    found, imported = _assignments(path)
    name = found.pop("", path.stem)
    fields = {}
    for key, value in found.items():
        if isinstance(value, _Name):
            if value in namespace:  # ERROR, WARNING
                value = namespace[value]
            elif value in imported:
                value = _assignments(imported[value], in_class=False)[0].get(value)
            else:
                continue
            if isinstance(value, _Name):
                continue
        fields[key] = value
    return name, fields


class _Name(str):
    """An assignment's value that is a name, not a literal."""


def _assignments(path: Path, in_class: bool = True) -> tuple[dict, dict]:
    """Literal (or single-name) assignments of the first `Rule` subclass's
    body (its name under the key ""), or (in_class=False) of the module's top
    level; and the names `from .x import NAME` brings, with their files."""
    text = path.read_text(encoding="utf-8")
    starts = [0]
    for line in io.StringIO(text):
        starts.append(starts[-1] + len(line))

    def offset(position) -> int:
        return starts[position[0] - 1] + position[1]

    found: dict = {}
    imported: dict = {}
    depth, statement, inside = 0, [], not in_class
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.INDENT:
            depth += 1
        elif token.type == tokenize.DEDENT:
            depth -= 1
            if depth == 0 and in_class and inside:
                break  # the class ends
        elif token.type == tokenize.NEWLINE:
            words = [t.string for t in statement]
            if depth == 0 and words[:1] == ["from"] and "import" in words:
                where = "".join(words[1:words.index("import")])
                level = len(where) - len(where.lstrip("."))
                module = path.parent
                for _ in range(level - 1):
                    module = module.parent
                module = module.joinpath(*where.lstrip(".").split(".")).with_suffix(".py")
                imported.update((w, module) for w in words[words.index("import") + 1:] if w.isidentifier())
            elif depth == 0 and in_class and words[:1] == ["class"] and "Rule" in words[2:]:
                found[""], inside = words[1], True
            elif inside and depth == (1 if in_class else 0) and len(statement) > 2 and words[1] == "=":
                value = text[offset(statement[2].start):offset(token.start)].strip()
                try:
                    found[words[0]] = ast.literal_eval(value)
                except (ValueError, SyntaxError):
                    if value.isidentifier():
                        found[words[0]] = _Name(value)
            statement = []
        elif token.type not in _SKIPPED:
            statement.append(token)
    return found, imported
