"""What `fix` leaves outside its scope: the TF1-only names a file still uses
that are not session or thread config (`tf.placeholder`, `tf.get_variable`
...). Those are `tf_upgrade_v2`'s work; `fix` counts them so that "no
finding left" is not read as "runs on TF2". Only files the run parsed anyway
are looked at (past the byte pre-filter), with Python's own `ast`."""

from __future__ import annotations

import ast
import json
from collections import Counter

from ..codemod import symbols
from ..codemod.guards import TF1_MARKERS
from ..codemod.scopes import Scopes

# The names TF2's root module lacks (the guards' list, which tests/test_outside.py
# checks against the installed TensorFlow) that are no session config.
TF1_ONLY_OUTSIDE = frozenset(TF1_MARKERS - symbols.TF1_ONLY)


def _code(data: bytes, path: str) -> list[str]:
    """The Python source of a file: a notebook's code cells (magics and shell lines dropped)."""
    if not path.endswith(".ipynb"):
        return [data.decode("utf-8", "replace")]
    cells = json.loads(data).get("cells", [])
    sources = []
    for cell in cells:
        if cell.get("cell_type") == "code":
            source = cell.get("source", "")
            text = source if isinstance(source, str) else "".join(source)
            sources.append("\n".join(line for line in text.splitlines() if not line.lstrip().startswith(("%", "!"))))
    return sources


def tf1_names_left(data: bytes, path: str, tree: ast.Module | None = None) -> Counter:
    """`tf.NAME` -> uses, for each TF1-only name outside session config the
    file reads. `tree`: the `ast` of a .py file's `data`, when the run has it."""
    found: Counter = Counter()
    if not any(marker.rpartition(".")[2].encode() in data for marker in TF1_ONLY_OUTSIDE):
        return found  # a byte test first: most files name none of them
    if tree is not None and not path.endswith(".ipynb"):
        trees = [tree]
    else:
        try:
            sources = _code(data, path)
        except ValueError:
            return found
        trees = []
        for source in sources:
            try:
                trees.append(ast.parse(source))
            except (SyntaxError, ValueError):
                continue
    for tree in trees:
        scopes = Scopes(tree)
        parents = scopes.parents
        # only a name an import binds can stand for TensorFlow's: each such name's longest chain, once
        uses = []
        for identifier in scopes.imported:
            for node in scopes.names_by_id.get(identifier, ()):
                parent = parents.get(node)
                while type(parent) is ast.Attribute and parent.value is node:
                    node, parent = parent, parents.get(parent)
                uses += [(node, marker) for name in scopes.qualified_names(node) for marker in _markers(name)]
        if len({marker for _, marker in uses}) > 1:  # the line lists them by count, then as the walk met them
            walked = {id(node): number for number, node in enumerate(scopes.scopes)}
            uses.sort(key=lambda use: walked[id(use[0])])
        for _, marker in uses:
            found[f"tf.{marker}"] += 1
    return found


def _markers(qualified: str) -> list[str]:
    if not qualified.startswith("tensorflow."):
        return []
    rest = qualified[len("tensorflow."):]
    return [m for m in TF1_ONLY_OUTSIDE if rest == m or rest.startswith(m + ".")][:1]


def line(path: str, names: Counter) -> str:
    """The one line `fix` prints for such a file."""
    uses = sum(names.values())
    listed = ", ".join(name for name, _ in names.most_common())
    return (f"{path}: {uses} use{'s' if uses != 1 else ''} of TF1-only names outside session and thread config "
            f"left ({listed}): not this tool's scope, `tf_upgrade_v2` rewrites them")
