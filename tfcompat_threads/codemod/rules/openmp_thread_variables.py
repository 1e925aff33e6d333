"""TFT010 openmp-thread-variables."""

from __future__ import annotations

import ast

from ..findings import WARNING
from ..symbols import OPENMP_THREAD_COUNTS, TF_THREAD_VARIABLES, THREAD_SETTERS
from . import Example, Rule


class OpenmpThreadVariables(Rule):
    code = "TFT010"
    name = "openmp-thread-variables"
    severity = WARNING
    summary = "OMP_NUM_THREADS / MKL_NUM_THREADS set in a TensorFlow program, where they size no TF pool."
    what = (
        "Finds `os.environ[...] = `, `os.environ.setdefault`, `os.environ.update` and `os.putenv` of "
        "OMP_NUM_THREADS or MKL_NUM_THREADS in a module that imports TensorFlow (or Keras, or the shim), "
        "set as if to size TensorFlow's threads: not where the module sizes TensorFlow's pools itself "
        "(TF_NUM_INTRAOP_THREADS / TF_NUM_INTEROP_THREADS, tf.config.threading) or imports torch, whose "
        "pool OMP_NUM_THREADS sizes. KMP_BLOCKTIME, KMP_AFFINITY, KMP_SETTINGS and KMP_HW_SUBSET tune "
        "OpenMP's threads (spin time, pinning, output, cores) and size nothing: not reported. Nor where the "
        "project's requirements name Intel's OpenMP build (`intel-tensorflow`): there the variable sizes "
        "the pool oneDNN's matmuls and convolutions run on."
    )
    why = (
        "Which builds read them: on Intel's OpenMP build (intel-tensorflow 2.14, counted in "
        "tests/test_openmp_build.py) OMP_NUM_THREADS sizes the OpenMP pool oneDNN's matmuls and "
        "convolutions run on, whatever the intra-op setting, and libiomp5 reads the KMP_* variables; there "
        "keep it (tfcompat_threads.configure() sets it from intra_op_parallelism_threads when it is unset). "
        "The official tensorflow-cpu wheels run "
        "oneDNN on TensorFlow's own intra-op pool, and there none of them changes the intra-op or inter-op "
        "pool (counted on 2.15 and 2.21, tests/test_measure_env.py). OMP_NUM_THREADS does size numpy's "
        "OpenBLAS threads. Code that sets them to limit TensorFlow's threads gets nothing from it on the "
        "official wheels."
    )
    example = """\
os.environ["OMP_NUM_THREADS"] = "4"
import tensorflow as tf
"""
    use_instead = """\
os.environ["TF_NUM_INTRAOP_THREADS"] = "4"   # before TensorFlow starts
import tensorflow as tf
tf.config.threading.set_intra_op_parallelism_threads(4)  # or this, before the first op
"""
    fix_safety = "No automatic fix: the variable may be meant for numpy or an Intel build of TensorFlow."
    valid = (
        "import os\nimport tensorflow as tf\nos.environ['TF_NUM_INTRAOP_THREADS'] = '4'\n",
        "import os\nos.environ['OMP_NUM_THREADS'] = '4'\nimport numpy\n",
        # pinning and quieting OpenMP size nothing
        "import os\nimport tensorflow as tf\ndef suppress_warnings():\n    os.environ['KMP_AFFINITY'] = 'noverbose'\n"
        "os.environ['KMP_BLOCKTIME'] = '1'\nos.environ['KMP_AFFINITY'] = 'granularity=fine,compact,1,0'\n",
        # TensorFlow's pools are sized the right way; the OpenMP ones are for torch
        "import os\nimport tensorflow as tf\nimport torch\nos.environ['OMP_NUM_THREADS'] = '4'\n",
        "import os\nimport tensorflow as tf\nos.environ['TF_NUM_INTRAOP_THREADS'] = '4'\n"
        "os.environ['TF_NUM_INTEROP_THREADS'] = '1'\nos.environ['OMP_NUM_THREADS'] = '4'\n",
    )
    invalid = (Example("import os\nimport tensorflow as tf\nos.environ['OMP_NUM_THREADS'] = '4'\n"),)

    def check(self, context):
        analysis = context.analysis
        text = context.source.text
        if not any(name in text for name in OPENMP_THREAD_COUNTS) or not any(
            _imports_tensorflow(node) for node in analysis.imports
        ) or any(_imports(node, "torch") for kind in (ast.Import, ast.ImportFrom)
                 for node in analysis.index.of_type(kind)):
            return
        found = []
        index = analysis.index
        calls = [call for method in _METHODS for call in index.calls_named(method)]
        candidates = sorted([*index.of_type(ast.Assign), *calls], key=lambda node: (node.lineno, node.col_offset))
        for node in candidates:
            for name_node in _variables_set(analysis, node):
                name = analysis.literal(name_node)
                if isinstance(name, str):
                    found.append((name, name_node))
        if any(name in TF_THREAD_VARIABLES for name, _ in found) or any(
                symbol.name in THREAD_SETTERS for _, symbol in analysis.calls):
            return  # TensorFlow's pools are sized here the right way: the OpenMP count is for something else
        if context.build == "openmp":
            return  # the project declares Intel's OpenMP build: there the variable sizes oneDNN's pool
        for name, name_node in found:
            if name in OPENMP_THREAD_COUNTS:
                yield context.finding(
                    self.code,
                    name_node,
                    f"{name} does not size TensorFlow's thread pools on the official wheels"
                    + ("; it sizes numpy's OpenBLAS threads" if name == "OMP_NUM_THREADS" else ""),
                    help="for TensorFlow's pools use TF_NUM_INTRAOP_THREADS / TF_NUM_INTEROP_THREADS, or "
                    "tf.config.threading; `tfcompat-threads explain` shows what is in force",
                )


_METHODS = ("setdefault", "update", "putenv")  # the calls _variables_set reads


def _variables_set(analysis, node) -> list:
    """The name expressions of the environment variables a statement sets."""
    kind = type(node)
    if kind is ast.Assign:
        return [t.slice for t in node.targets if type(t) is ast.Subscript and _is_environ(analysis, t.value)]
    if kind is not ast.Call or type(node.func) is not ast.Attribute:
        return []
    method, owner = node.func.attr, node.func.value
    if method == "setdefault" and _is_environ(analysis, owner) and node.args:
        return [node.args[0]]
    if method == "update" and _is_environ(analysis, owner):
        found = [ast.Constant(k.arg, lineno=k.lineno, col_offset=k.col_offset, end_lineno=k.end_lineno,
                              end_col_offset=k.col_offset + len(k.arg)) for k in node.keywords if k.arg]
        for arg in node.args:
            if type(arg) is ast.Dict:
                found += [key for key in arg.keys if key is not None]
        return found
    if method == "putenv" and "os.putenv" in analysis.qnames(node.func) and node.args:
        return [node.args[0]]
    return []


def _imports_tensorflow(node) -> bool:
    """An import of TensorFlow, or of what runs it (the shim, Keras)."""
    return _imports(node, "tensorflow", "tfcompat_threads", "keras")


def _imports(node, *packages: str) -> bool:
    names = [a.name for a in node.names] if type(node) is ast.Import else [node.module or ""]
    return any(n.split(".")[0] in packages for n in names)


def _is_environ(analysis, node) -> bool:
    return "os.environ" in analysis.qnames(node)


RULE = OpenmpThreadVariables()
