"""TensorFlow names a program uses (qualified by its imports), and which of
them the installed TensorFlow lacks: the check that a fix introduces only
names that exist (a safe fix must not use a name the newest TF 2.x lacks)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys

from tfcompat_threads.codemod.scopes import Scopes


def tensorflow_names(source: bytes) -> set[str]:
    """Every `tensorflow.` / `tfcompat_threads.` dotted name the module reads
    (the longest chain at each place) or imports."""
    tree = ast.parse(source)
    scopes = Scopes(tree)
    found = set()
    for node in scopes.scopes:
        parent = scopes.parents.get(node)
        if type(node) in (ast.Name, ast.Attribute) and not (type(parent) is ast.Attribute and parent.value is node):
            found |= {n for n in scopes.qualified_names(node) if n.startswith(("tensorflow.", "tfcompat_threads."))}
        elif type(node) is ast.ImportFrom and node.module and node.module.startswith("tensorflow") and not node.level:
            found |= {f"{node.module}.{a.name}" for a in node.names if a.name != "*"}
    return found


RESOLVE = r"""
import importlib, json, sys
out = {}
for name in json.loads(sys.stdin.read()):
    parts = name.split(".")
    try:  # the public API first: `tensorflow.distribute` is also a package of its own
        obj = importlib.import_module(parts[0])
        for part in parts[1:]:
            obj = getattr(obj, part)
        continue
    except Exception:
        pass
    obj = None
    for end in range(len(parts), 0, -1):  # the longest importable module, then attributes
        try:
            obj = importlib.import_module(".".join(parts[:end]))
            break
        except ImportError:
            continue
    try:
        for part in parts[end:]:
            obj = getattr(obj, part)
    except Exception as error:
        out[name] = f"{type(error).__name__}: {error}"[:300]
print(json.dumps(out))
"""


def missing(names, python: str = sys.executable) -> dict[str, str]:
    """{name: why} for each of `names` (dotted) that the TensorFlow `python`
    imports lacks; the others resolve. Also bench/real_repos.py's check."""
    if not names:
        return {}
    proc = subprocess.run([python, "-c", RESOLVE], input=json.dumps(sorted(names)), capture_output=True,
                          text=True, timeout=300, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    if proc.returncode != 0:
        raise RuntimeError(f"resolving names with {python} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def unresolved(names: dict[str, str]) -> dict[str, str]:
    """{name: where it was seen} for the names the TensorFlow of the row (TF_PYTHON) lacks."""
    from tests.tfproc import TF_PYTHON

    return {name: f"{names[name]}: {reason}" for name, reason in missing(names, TF_PYTHON).items()}


def written_names(tf_version: str | None, keras2: bool = True) -> dict[str, str]:
    """{tensorflow.name: what writes it} for every name the codemod writes when
    the code must run on `tf_version`: each option's templates, spelled for that
    release, and the tf.compat.v1 renames (those of Keras 2 only with `keras2`).
    A name the release has no spelling for is not written (the fix is withheld)."""
    from tfcompat_threads import options
    from tfcompat_threads.codemod import symbols

    found: dict[str, str] = {}
    for option in options.OPTIONS:
        for template in (option.native, *(form.template for form in option.forms)):
            for name in options.written_names(template or ""):
                try:
                    found.setdefault("tensorflow." + options.spelling(name, tf_version), option.field)
                except options.NoName:
                    pass
    from tfcompat_threads.codemod.rules.tf1_only_name import renamed

    for name in symbols.TF1_ONLY:
        target = renamed(name, tf_version)
        if target is not None and (keras2 or name not in symbols.KERAS2_ONLY):
            found.setdefault(f"tensorflow.{target}", "tf1-only-name's rename")
    return found
