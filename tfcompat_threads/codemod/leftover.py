"""What `fix` leaves outside its scope: the TF1-only names a module still
uses that are not session or thread config (`tf.placeholder`,
`tf.get_variable` ...). Those are `tf_upgrade_v2`'s work; `fix` counts them
so that "no finding left" is not read as "runs on TF2".

A use is a name an import binds (`tf` of `import tensorflow as tf`,
`get_variable` of `from tensorflow import get_variable`), as far as its
attribute chain goes, whose import's dotted name makes it `tensorflow.NAME`.
They are found from the scopes the analysis built (`Left`, kept in the cache
with the findings), and after a fix from the edits it made: a use the edits
left alone is still there, one inside a removed text is gone. Where an edit
could have made or moved one (a name of the list in the new text, an import,
a binding or a scope's header touched, a chain joined across its ends) the
fixed module is read again instead (`in_tree`), so that both ways give the
same count (tests/test_outside.py)."""

from __future__ import annotations

import ast
import bisect
import re
from collections import Counter
from typing import NamedTuple

from . import symbols
from .guards import TF1_MARKERS
from .scopes import Scopes

# The names TF2's root module lacks (the guards' list, which tests/test_outside.py
# checks against the installed TensorFlow) that are no session config.
TF1_ONLY_OUTSIDE = frozenset(TF1_MARKERS - symbols.TF1_ONLY)
_LAST_PARTS = frozenset(marker.rpartition(".")[2] for marker in TF1_ONLY_OUTSIDE)
_FIRST_PARTS = frozenset(marker.partition(".")[0] for marker in TF1_ONLY_OUTSIDE if "." in marker)
_LAST_BYTES = tuple(part.encode() for part in sorted(_LAST_PARTS))
# New text with one of these binds a name or opens a scope: the module is read again.
_BINDING_WORDS = frozenset({"import", "global", "nonlocal", "def", "class", "lambda"})
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPACES = frozenset(" \t\f\r\n\\")
_SPACE_AFTER = re.compile(r"(?:[ \t\f\r\n\\]|#[^\r\n]*)*")


class Left(NamedTuple):
    """The uses of one module's text, for `after`. Offsets are the text's."""

    uses: tuple[tuple[int, int, str], ...]
    """(start, end, "tf.NAME") of each use, in the order the scopes walk met them."""
    guards: tuple[tuple[int, int], ...]
    """Spans an edit must not touch for the uses to stand: every import,
    `global` and `nonlocal`, and every binding of a name an import binds."""
    headers: tuple[tuple[int, int, int], ...]
    """(start, header end, end) of every def, class, lambda and comprehension:
    an edit may remove one whole, or change what is inside, not make
    another scope of it (a header replaced, its body kept)."""
    imported: frozenset[str]
    """The names an import binds."""
    named: bool
    """False: the text names none of the list (a byte test; nothing else was read)."""


NOTHING = Left((), (), (), frozenset(), False)


def may_name(data: bytes | str) -> bool:
    """A byte test first: most modules name none of them."""
    if isinstance(data, str):
        return any(part in data for part in _LAST_PARTS)
    return any(part in data for part in _LAST_BYTES)


def left_in(scopes: Scopes, source) -> Left:
    """The uses of a module whose `scopes` the analysis built (`source`: its
    codemod.source.Source, for offsets)."""
    if not may_name(source.text):
        return NOTHING
    start, end = source.start, source.end
    uses = tuple((start(node), end(node), marker) for node, marker in _uses(scopes))
    imported = frozenset(scopes.imported)
    spans, headers = [], []
    for kind in (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal):
        spans += [(start(node), end(node)) for node in scopes.by_type.get(kind, ())]
    for kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, *_COMPREHENSIONS):
        for node in scopes.by_type.get(kind, ()):
            inner = node.body[0] if kind in _BLOCKS else node.body if kind is ast.Lambda else \
                node.key if kind is ast.DictComp else node.elt
            headers.append((start(node), start(inner), end(node)))  # its name, parameters, bases, bracket
            if kind in _COMPREHENSIONS:  # and its `for ... in ...` parts
                headers.append((end(node.value if kind is ast.DictComp else inner), end(node), end(node)))
            if getattr(node, "name", None) in imported:
                spans.append((start(node), end(node)))
    for kind, field in ((ast.arg, "arg"), (ast.ExceptHandler, "name"), (ast.MatchAs, "name"),
                        (ast.MatchStar, "name"), (ast.MatchMapping, "rest")):
        spans += [(start(node), end(node)) for node in scopes.by_type.get(kind, ())
                  if getattr(node, field, None) in imported]
    for identifier in imported:
        spans += [(start(node), end(node)) for node in scopes.names_by_id.get(identifier, ())
                  if type(node.ctx) is not ast.Load]
    return Left(uses, tuple(sorted(spans)), tuple(sorted(headers)), imported, True)


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_BLOCKS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def counted(left: Left) -> Counter:
    """`tf.NAME` -> uses, the commonest first, ties as the walk met them."""
    return Counter(marker for _, _, marker in left.uses)


def in_tree(tree: ast.Module) -> Counter:
    """The count of a module read afresh (a fixed module's tree)."""
    return Counter(marker for _, marker in _uses(Scopes(tree)))


def after(left: Left, text: str, edits, fixed: str) -> Counter | None:
    """The count of the module the `edits` (codemod.source.Edit, on `text`)
    made into `fixed`, from the uses of `text`; None when an edit may have
    made, moved or rebound a use (then read `fixed` again: `in_tree`)."""
    if not left.named:
        return Counter() if not may_name(fixed) else None
    edits = sorted(edits)
    starts, ends = [e.start for e in edits], [e.end for e in edits]
    if any(ends[i] > starts[i + 1] for i in range(len(edits) - 1)):
        return None  # edits that overlap: not the usual fix
    for edit in edits:
        if _may_make_a_use(edit, text, left.imported):
            return None
    for a, b in left.guards:
        if _touching(starts, ends, edits, a, b):
            return None
    for a, b, whole in left.headers:
        if any(e.start < e.end and not (e.start <= a and whole <= e.end) for e in _touching(starts, ends, edits, a, b)):
            return None
    kept = []
    for a, b, marker in left.uses:
        touching = _touching(starts, ends, edits, a, b)
        if not touching:
            kept.append(marker)
        elif not any(e.start <= a and b <= e.end and e.start < e.end for e in touching):
            return None  # an edit changed part of the chain
    return Counter(kept)


def _touching(starts, ends, edits, a: int, b: int) -> list:
    """The edits that change characters of [a, b) or insert inside it."""
    found = []
    for index in range(bisect.bisect_right(ends, a), bisect.bisect_left(starts, b)):
        edit = edits[index]
        if edit.start < b and (edit.end > a if edit.start < edit.end else edit.start > a):
            found.append(edit)
    return found


def _may_make_a_use(edit, text: str, imported: frozenset[str]) -> bool:
    """Whether the new text of an edit, or its joining of the text around it,
    may make a use, or change what a name an import binds stands for."""
    content = edit.content
    if not content.isascii():
        return True  # Python reads identifiers NFKC-normalised: not worth the care here
    if "import" in content:  # what the shim's fix adds, `import tfcompat_threads`, binds no name of TensorFlow's
        content = _NEW_IMPORT.sub(lambda m: "" if _harmless(m.group(1), imported) else m.group(), content)
    words = _WORD.findall(content)
    if any(word in _LAST_PARTS or word in _BINDING_WORDS for word in words):
        return True
    if words and words[-1] in _FIRST_PARTS and content.rstrip().endswith(words[-1]):
        return True  # `... .train` before `.Saver`
    if any(c in content for c in "([{") and sum(content.count(c) for c in "([{") != sum(
            content.count(c) for c in ")]}"):
        return True
    for match in _WORD.finditer(content):
        if match.group() in imported and not content[match.end():].lstrip().startswith("."):
            return True  # a name an import binds, bound or read bare
    stripped = content.strip()
    if stripped.endswith("."):
        return True
    # the characters beside the edit: the nearest ones past spaces (and
    # comments after), where an attribute chain can go on; the next ones,
    # where two words would meet
    previous, at = "", edit.start
    while at > 0 and text[at - 1] in _SPACES:
        at -= 1
    if at > 0:
        previous = text[at - 1]
    after = _SPACE_AFTER.match(text, edit.end).end()
    following = text[after: after + 1]
    if not stripped:  # a removal: the text on its two sides meets
        return "." in (previous, following) or (
            _word_character(text[edit.start - 1: edit.start]) and _word_character(text[edit.end: edit.end + 1]))
    return ((_word_character(content[0]) and _word_character(text[edit.start - 1: edit.start]))
            or (_word_character(content[-1]) and _word_character(text[edit.end: edit.end + 1])))


_NEW_IMPORT = re.compile(r"^[ \t]*import[ \t]+([A-Za-z_][A-Za-z0-9_.]*)[ \t]*$", re.MULTILINE)


def _harmless(module: str, imported: frozenset[str]) -> bool:
    top = module.partition(".")[0]
    return top != "tensorflow" and top not in imported


def _word_character(character: str) -> bool:
    return bool(character) and (character.isalnum() or character == "_")


def _uses(scopes: Scopes):
    """(node, "tf.NAME") of every use, in walk order: each name an import
    binds, its longest attribute chain, resolved by the imports it can see."""
    parents = scopes.parents
    uses = []
    for identifier in scopes.imported:
        for node in scopes.names_by_id.get(identifier, ()):
            if type(node.ctx) is not ast.Load:
                continue
            scope = scopes.scopes.get(node)
            bases = {b.qualified for b in scope.visible(identifier) if b.kind == "import" and b.qualified} \
                if scope is not None else ()
            if not bases:
                continue
            chain = []
            top, parent = node, parents.get(node)
            while type(parent) is ast.Attribute and parent.value is top:
                chain.append(parent.attr)
                top, parent = parent, parents.get(parent)
            suffix = "".join("." + attr for attr in chain)
            for base in sorted(bases):
                marker = _marker(base + suffix)
                if marker is not None:
                    uses.append((top, marker))
    if len({marker for _, marker in uses}) > 1:  # ties are listed as the walk met them
        walked = {id(node): number for number, node in enumerate(scopes.scopes)}
        uses.sort(key=lambda use: walked[id(use[0])])
    return uses


def _marker(qualified: str) -> str | None:
    if not qualified.startswith("tensorflow."):
        return None
    rest = qualified[len("tensorflow."):]
    for marker in TF1_ONLY_OUTSIDE:
        if rest == marker or rest.startswith(marker + "."):
            return f"tf.{marker}"
    return None
