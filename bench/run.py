"""Speed and memory of tfcompat-threads, each as a ratio against a floor
measured in the same run (median of repeated, interleaved runs).

    python bench/run.py                 # every figure
    python bench/run.py --only hook     # one figure
    python bench/run.py --json out.json
    python bench/run.py --trees DIR     # with the real-repository figure (bench/real_repos.tsv)
    python bench/run.py --only worstfile --trees DIR [DIR...]   # each big real file vs ast.parse
    python bench/run.py --only scaling  # generated modules of N, 2N, 4N test methods
    python bench/run.py --only ruff --trees DIR   # a cold check beside ruff's banned-api rule

--trees takes folders of checkouts (each subfolder that is a git checkout is
a tree; a folder given itself is no tree of another: `--trees T T/unseen`).

Run it with the Python of an environment that has tfcompat-threads installed
(and tensorflow, for the `upgrade` figure, which compares with tf_upgrade_v2;
and ruff, for the `ruff` figure: `pip install ruff` there or on PATH. ruff is
a dependency of this bench only, never of the package).
Plain Python and public tools only; nothing here is a test: no test asserts a
time.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import time
import warnings
from pathlib import Path

PYTHON = sys.executable
BIN = Path(PYTHON).parent
TOOL = [str(BIN / "tfcompat-threads")] if (BIN / "tfcompat-threads").exists() else [PYTHON, "-m", "tfcompat_threads"]
ROOT = Path(__file__).resolve().parent.parent
READ_ALL = "import pathlib, sys\nfor p in pathlib.Path(sys.argv[1]).rglob('*.py'):\n    p.read_bytes()\n"
READ_ALL_CLICK_SEARCH = ("import pathlib, sys, click\nfor p in pathlib.Path(sys.argv[1]).rglob('*.py'):\n"
                         "    b'tensorflow' in p.read_bytes()\n")
# ... and that asks the tool's own pre-filter of each (codemod/prefilter.py: a file that does not
# name TensorFlow may still import it by a star import or a name spelled with other characters)
READ_ALL_CLICK_PREFILTER = ("import pathlib, sys, click\n"
                            "from tfcompat_threads.codemod.prefilter import may_need_codemod\n"
                            "for p in pathlib.Path(sys.argv[1]).rglob('*.py'):\n"
                            "    may_need_codemod(p.read_bytes(), str(p))\n")


def cache_folder() -> Path | None:
    folder = os.environ.get("TFCOMPAT_THREADS_CACHE_DIR")
    return Path(folder) if folder else None


def wall(command: list[str], cwd: Path | None = None, prepare=None, warm: bool = False) -> float:
    """Wall time of one run. A run of the tool starts with an empty cache
    (what a first run pays, keeping what it found included) unless `warm`."""
    if prepare is not None:
        prepare()
    if command[: len(TOOL)] == TOOL and not warm and cache_folder() is not None:
        shutil.rmtree(cache_folder(), ignore_errors=True)
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def compare(subject: list[str], floor: list[str], repeat: int, prepare=None) -> dict:
    """Median wall time of `subject` and of `floor`, run alternately."""
    wall(subject, prepare=prepare)  # warm the file cache and .pyc files
    wall(floor)
    subject_times, floor_times = [], []
    for _ in range(repeat):
        subject_times.append(wall(subject, prepare=prepare))
        floor_times.append(wall(floor))
    s, f = statistics.median(subject_times), statistics.median(floor_times)
    return {"subject_s": round(s, 4), "floor_s": round(f, 4), "ratio": round(s / f, 3)}


SCAN_SETTINGS = """[project]
name = "no-tensorflow"
dependencies = ["numpy>=1.20", "click"]

[tool.tfcompat-threads]
target = "native"
extend-exclude = ["*_generated.py"]
"""


def stdlib_copy(work: Path) -> Path:
    """A copy of the standard library, a project with a pyproject.toml (its
    settings and requirements are read by every run, as in a user's tree)."""
    copy = work / "stdlib"
    if not copy.exists():
        shutil.copytree(
            sysconfig.get_paths()["stdlib"],
            copy,
            ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.so", "*.pyc"),
            symlinks=True,
        )
        (copy / "pyproject.toml").write_text(SCAN_SETTINGS)
    return copy


def bench_scan(work: Path, repeat: int) -> dict:
    """The whole run over a tree with no TensorFlow code: start-up, the
    settings file, the walk, the pre-filter of every file and the cache as a
    first run has it (on, emptied before each run), against a Python that
    starts and reads every .py file."""
    from tfcompat_threads.lint.runner import needs_codemod

    copy = stdlib_copy(work)
    read_all = [PYTHON, "-c", READ_ALL, str(copy)]
    result = compare([*TOOL, "check", "-q", str(copy)], read_all, repeat)
    # what any click command that reads the files and searches each once for `tensorflow` pays
    least = compare([PYTHON, "-c", READ_ALL_CLICK_SEARCH, str(copy)], read_all, repeat)
    prefiltered = compare([PYTHON, "-c", READ_ALL_CLICK_PREFILTER, str(copy)], read_all, repeat)
    files = list(copy.rglob("*.py"))
    passed = sum(1 for path in files if needs_codemod(path.read_bytes(), str(path))[0])  # what the run parses
    return {**result, "files": len(files), "target": 2.0, "prefilter_passed": passed,
            "floors": {"click, read, one search": {"s": least["subject_s"], "ratio": least["ratio"]},
                       "click, read, the pre-filter": {"s": prefiltered["subject_s"],
                                                       "ratio": prefiltered["ratio"]}},
            "cache": "on, cold" + ("" if passed else " (never opened: no file passes the pre-filter)"),
            "what": "check over a copy of the standard library (a pyproject.toml with settings) vs reading "
                    "every .py file in Python"}


def bench_hook(work: Path, repeat: int) -> dict:
    clean = work / "clean.py"
    clean.write_text("import os\n\n\ndef main():\n    return os.getcwd()\n")
    result = compare([*TOOL, "check", "-q", str(clean)], [PYTHON, "-c", "import click"], repeat)
    return {**result, "target": 1.3, "what": "check of one clean file vs python -c 'import click'"}


def bench_legacy(work: Path, repeat: int) -> dict:
    legacy = work / "legacy.py"
    legacy.write_bytes((ROOT / "examples" / "legacy_project" / "train.py").read_bytes())
    result = compare([*TOOL, "check", "-q", str(legacy)], [PYTHON, "-c", "import libcst, click"], repeat)
    return {**result, "target": 1.3, "what": "check of one legacy file vs python -c 'import libcst, click'"}


def bench_shim(work: Path, repeat: int) -> dict:
    result = compare([PYTHON, "-c", "import tfcompat_threads"], [PYTHON, "-c", "import packaging.version"], repeat)
    return {**result, "target": 1.5, "what": "import tfcompat_threads vs import packaging.version"}


def bench_memory(work: Path, repeat: int) -> dict:
    copy = stdlib_copy(work)
    peaks = [peak_mb([*TOOL, "check", "-q", str(copy)]) for _ in range(max(1, repeat // 3))]
    return {"peak_rss_mb": round(statistics.median(peaks), 1), "target_mb": 200,
            "what": "peak RSS of check over a copy of the standard library"}


# -- the 600-file TF1 tree --------------------------------------------------------------

SESSION_SHAPES = [
    """
    import tensorflow as tf
    from keras import backend as K

    config = tf.ConfigProto(intra_op_parallelism_threads={a}, inter_op_parallelism_threads={b})
    sess = tf.Session(config=config)
    K.set_session(sess)
    """,
    """
    import tensorflow as tf

    config = tf.ConfigProto()
    config.gpu_options.allow_growth = True
    config.intra_op_parallelism_threads = {a}
    tf.keras.backend.set_session(tf.Session(config=config))
    """,
    """
    import tensorflow as tf


    def get_session(threads={a}):
        config = tf.ConfigProto(inter_op_parallelism_threads={b})
        config.intra_op_parallelism_threads = threads
        return tf.Session(config=config)


    tf.keras.backend.set_session(get_session())
    """,
    """
    import tensorflow as tf

    config = tf.ConfigProto(intra_op_parallelism_threads={a}, allow_soft_placement=True)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
    """,
]

MODEL_CODE = """
import numpy as np
import tensorflow as tf

FLAGS = tf.app.flags.FLAGS


def dense_block_{i}(inputs, units, training):
    x = tf.layers.dense(inputs, units, activation=None, name="dense_{i}")
    x = tf.layers.batch_normalization(x, training=training)
    x = tf.nn.relu(x)
    return tf.layers.dropout(x, rate=0.1, training=training)


def model_fn_{i}(features, labels, mode, params):
    training = mode == tf.estimator.ModeKeys.TRAIN
    x = features["x"]
    for width in params.get("widths", [256, 128, 64]):
        x = dense_block_{i}(x, width, training)
    logits = tf.layers.dense(x, params["classes"])
    predictions = {{"classes": tf.argmax(logits, axis=1), "probabilities": tf.nn.softmax(logits)}}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    tf.summary.scalar("loss", loss)
    optimizer = tf.train.AdamOptimizer(learning_rate=params.get("lr", 1e-3))
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    metrics = {{"accuracy": tf.metrics.accuracy(labels, predictions["classes"])}}
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)


def input_fn_{i}(data, batch_size=32, shuffle=True):
    dataset = tf.data.Dataset.from_tensor_slices(({{"x": data[0]}}, data[1]))
    if shuffle:
        dataset = dataset.shuffle(buffer_size=1000)
    return dataset.batch(batch_size).prefetch(1)


def make_data_{i}(n=128, dims=16, classes=4, seed={i}):
    rng = np.random.RandomState(seed)
    return rng.randn(n, dims).astype("float32"), rng.randint(0, classes, size=n).astype("int32")
"""


def make_tree(folder: Path, session_files: int = 60, model_files: int = 540) -> None:
    rng = random.Random(0)
    for i in range(session_files):
        shape = textwrap.dedent(SESSION_SHAPES[i % len(SESSION_SHAPES)]).lstrip()
        body = shape.format(a=rng.randint(1, 8), b=rng.randint(1, 4))
        model = MODEL_CODE.format(i=i)
        path = folder / f"pkg{i % 10}" / f"train_{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body + model)
    for i in range(model_files):
        path = folder / f"pkg{i % 10}" / "models" / f"model_{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(MODEL_CODE.format(i=i).lstrip())


def bench_upgrade(work: Path, repeat: int) -> dict:
    if shutil.which("tf_upgrade_v2", path=str(BIN)) is None:
        return {"skipped": "tf_upgrade_v2 is not installed (install tensorflow next to tfcompat-threads)"}
    pristine = work / "tf1_tree"
    if not pristine.exists():
        make_tree(pristine)
    tree = work / "tf1_tree_fixed"
    out = work / "tf1_tree_upgraded"

    def fresh_copy():
        shutil.rmtree(tree, ignore_errors=True)
        shutil.copytree(pristine, tree)

    def clear_out():
        shutil.rmtree(out, ignore_errors=True)

    ours, theirs = [], []
    upgrade = [str(BIN / "tf_upgrade_v2"), "--intree", str(pristine), "--outtree", str(out), "--reportfile",
               str(work / "report.txt")]
    for _ in range(repeat):
        ours.append(wall([*TOOL, "fix", "-q", str(tree)], prepare=fresh_copy))
        theirs.append(wall(upgrade, prepare=clear_out))
    changed = sorted(
        str(p.relative_to(tree)) for p in tree.rglob("*.py") if p.read_bytes() != (pristine / p.relative_to(tree)).read_bytes()
    )
    only_session_files = all(Path(f).name.startswith("train_") for f in changed)
    s, f = statistics.median(ours), statistics.median(theirs)
    return {
        "subject_s": round(s, 3),
        "floor_s": round(f, 3),
        "ratio": round(s / f, 4),
        "target": 0.10,
        "files": 600,
        "rewritten": len(changed),
        "rewritten_are_the_session_files": only_session_files,
        "others_byte_identical": only_session_files and len(changed) == 60,
        "what": "fix of a 600-file TF1 tree (60 with session config) vs tf_upgrade_v2 --intree on the same tree",
    }


# -- a big legacy file ----------------------------------------------------------------------

BIG_HEAD = """import os

import tensorflow as tf

config = tf.ConfigProto()
config.intra_op_parallelism_threads = 2
sess = tf.Session(config=config)
"""
BIG_FUNCTION = """

def f{i}(x, y=3):
    z = x * y + {i}
    if z > 10:
        return os.path.join(str(z), 'a')
    return [a for a in range(z)]
"""


def big_file(work: Path, size: int = 1_000_000) -> Path:
    """A legacy file of `size` bytes: a session config at the top, then small functions."""
    path = work / "big.py"
    if not path.exists():
        parts, length, i = [BIG_HEAD], len(BIG_HEAD), 0
        while length < size:
            parts.append(BIG_FUNCTION.format(i=i))
            length += len(parts[-1])
            i += 1
        path.write_text("".join(parts))
    return path


PEAK = (
    "import resource, subprocess, sys\n"
    "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def peak_mb(command: list[str]) -> float:
    """Peak RSS of one run (of the tool: with an empty cache)."""
    if command[: len(TOOL)] == TOOL and cache_folder() is not None:
        shutil.rmtree(cache_folder(), ignore_errors=True)
    out = subprocess.run([PYTHON, "-c", PEAK, *command], capture_output=True, text=True)
    return int(out.stdout.strip()) / 1024


def bench_bigfile(work: Path, repeat: int) -> dict:
    """check and fix of a ~1 MB legacy file against Python's own parser on it."""
    source = big_file(work)
    subject = work / "big_subject.py"
    parse = [PYTHON, "-c", "import ast, sys; ast.parse(open(sys.argv[1], 'rb').read())", str(source)]

    def fresh():
        shutil.copyfile(source, subject)

    repeat = max(3, repeat // 3)
    check = compare([*TOOL, "check", "-q", "--exit-zero", str(subject)], parse, repeat, prepare=fresh)
    fix = compare([*TOOL, "fix", "-q", "--exit-zero", str(subject)], parse, repeat, prepare=fresh)
    fresh()
    parse_mb = peak_mb(parse)
    check_mb = peak_mb([*TOOL, "check", "-q", "--exit-zero", str(subject)])
    fix_mb = peak_mb([*TOOL, "fix", "-q", "--exit-zero", str(subject)])
    return {
        "bytes": source.stat().st_size,
        "check": {**check, "target": 3.0},
        "fix": {**fix, "target": 5.0},
        "memory": {"parse_mb": round(parse_mb), "check_mb": round(check_mb), "fix_mb": round(fix_mb),
                   "check_ratio": round(check_mb / parse_mb, 2), "target": 2.0},
        "what": "check and fix of a ~1 MB legacy file vs python -c 'ast.parse(...)' of it; peak memory",
    }


def bench_realrepos(work: Path, repeat: int, trees: list[Path] | None = None) -> dict:
    """check + fix over real TF1-era trees (all in one folder, one run each) vs
    tf_upgrade_v2 --intree on each tree (it takes one tree a run)."""
    if not trees:
        return {"skipped": "give --trees DIR (the checkouts of bench/real_repos.tsv)"}
    if shutil.which("tf_upgrade_v2", path=str(BIN)) is None:
        return {"skipped": "tf_upgrade_v2 is not installed (install tensorflow next to tfcompat-threads)"}
    folders = trees_of(trees)
    names = [p.name for p in folders]
    together = work / "repos"

    def fresh():
        shutil.rmtree(together, ignore_errors=True)
        together.mkdir()
        for folder in folders:
            shutil.copytree(folder, together / folder.name, symlinks=True)

    ours, uncached = [], []
    for _ in range(max(1, repeat // 5)):
        fresh()  # check starts with an empty cache; fix uses what check kept, as when a user runs them
        ours.append(wall([*TOOL, "check", "-q", "--exit-zero", str(together)]) +
                    wall([*TOOL, "fix", "-q", "--exit-zero", str(together)], warm=True))
        fresh()
        uncached.append(wall([*TOOL, "check", "-q", "--exit-zero", "--no-cache", str(together)]) +
                        wall([*TOOL, "fix", "-q", "--exit-zero", "--no-cache", str(together)]))
    theirs = 0.0
    for folder in folders:
        out = work / "upgraded"
        shutil.rmtree(out, ignore_errors=True)
        theirs += wall([str(BIN / "tf_upgrade_v2"), "--intree", str(folder), "--outtree", str(out),
                        "--reportfile", str(work / "report.txt")])
    s, n = statistics.median(ours), statistics.median(uncached)
    return {"subject_s": round(s, 2), "floor_s": round(theirs, 2), "ratio": round(s / theirs, 4),
            "target": 0.02, "trees": len(names),
            "no_cache": {"subject_s": round(n, 2), "ratio": round(n / theirs, 4)},
            "what": f"check + fix over {len(names)} real TF1-era trees vs tf_upgrade_v2 --intree on each"}


# -- how check grows with a module ----------------------------------------------------------

# The shape of a real 5,625-line TF test module (a class of many test methods, helpers called
# under version checks, nested functions and classes, a module-level config read by methods):
# at 4 * SCALING_METHODS methods the module is about as long as that one.
SCALING_HEAD = """import math
import os

import numpy as np
import tensorflow as tf
from packaging import version

_IS_TF2 = version.parse(tf.__version__) >= version.parse("2.0.0")

config = tf.ConfigProto()
config.gpu_options.allow_growth = True
config.intra_op_parallelism_threads = 2


def _executing_eagerly():
    return _IS_TF2 and tf.executing_eagerly()


class BaseTests(tf.test.TestCase):
    def evaluate(self, tensors):
        if _executing_eagerly():
            return tensors
        with tf.Session(config=config) as sess:
            return sess.run(tensors)

    def filter_supported_types(self, types):
        return [t for t in types if t != tf.float16 or not _IS_TF2]


class ScalingTests(BaseTests):
"""
SCALING_METHOD = """
    def test_op_{i}(self):
        \"\"\"Test op {i}: sums, products and shapes of 1D, 2D, 3D tensors.\"\"\"
        dtypes = self.filter_supported_types([tf.int32, tf.int64, tf.float16, tf.float32])
        dims = [1, 2, 3]
        for dtype, dim in zip(dtypes, dims):
            tensor = tf.random.uniform([17] * dim, -100, 100, dtype=tf.float32)
            tensor = tf.cast(tensor, dtype=dtype)
            summed = tf.reduce_sum(tensor) * {j}
            multiplied = summed * {j}
            max_difference = tf.reduce_max(tf.abs(summed - multiplied))
            if dtype in [tf.int32, tf.int64]:
                threshold = 0
            elif {j} < 10:
                threshold = 1e-4
            else:
                threshold = 1e-3
            diff = self.evaluate(max_difference)
            self.assertTrue(diff <= threshold, "op {i} produces incorrect results")
{extra}"""
# Every third method: a helper called under a version check, nested functions
# and a class, a session with its own config and one with the module's.
SCALING_EXTRA = """
        def body(x, scale={j}):
            def inner(y):
                return y * scale + _shared_{k}(y)

            return inner(x) + math.sqrt(scale)

        if tf.__version__.startswith("1."):
            result = _legacy_helper_{i}(body, dtypes)
        else:
            result = self._helper_{i}(body, dtypes)
        with self.test_session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
        session_config = tf.ConfigProto(inter_op_parallelism_threads={j})
        session_config.allow_soft_placement = True
        with tf.Session(config=session_config) as sess:
            for step in range({j}):
                value = sess.run(result) + step
        self.assertTrue(np.all(value >= 0), "op {i} is wrong")

    def _helper_{i}(self, body, dtypes):
        class Optimizer{i}(tf.compat.v1.train.Optimizer):
            def _apply_dense(self, grad, var):
                return var.assign_add(grad * {j})

        if version.parse(tf.__version__) < version.parse("2.6.0"):
            return [body(tf.constant(1, dtype=t)) for t in dtypes]
        return [body(tf.ones([{j}], dtype=t)) for t in dtypes] + [Optimizer{i}]
"""
SCALING_HELPER = """

def _legacy_helper_{i}(body, dtypes):
    if hasattr(tf, "ConfigProto"):
        conf = tf.ConfigProto(intra_op_parallelism_threads={j})
        with tf.Session(config=conf) as sess:
            return sess.run([body(tf.constant(1, dtype=t)) for t in dtypes])
    return [body(t) for t in dtypes]


def _shared_{i}(y):
    if not _IS_TF2:
        return tf.identity(y) * os.cpu_count()
    return y
"""
SCALING_METHODS = 36


def scaling_module(methods: int) -> str:
    """A module of `methods` test methods; every third with its helpers."""
    parts = [SCALING_HEAD]
    for i in range(methods):
        extra = SCALING_EXTRA.format(i=i, j=i % 7 + 1, k=i // 12 * 3) if i % 3 == 0 else ""
        parts.append(SCALING_METHOD.format(i=i, j=i % 7 + 1, extra=extra))
    parts += [SCALING_HELPER.format(i=i, j=i % 5 + 1) for i in range(0, methods, 3)]
    return "".join(parts)


def bench_scaling(work: Path, repeat: int) -> dict:
    """check of generated modules of N, 2N and 4N test methods, in-process as
    in `worstfile` (start-up, which would hide the growth, is out): each
    size's time and its ratio to N's; linear is 2x and 4x."""
    sizes = [SCALING_METHODS, 2 * SCALING_METHODS, 4 * SCALING_METHODS]
    checks, parses = {}, {}
    for n in sizes:
        path = work / "scaling" / str(n) / "test_scaling.py"  # a folder of its own: a project of one file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(scaling_module(n))
        checks[n] = check_in_process(str(path), path.read_bytes())
        parses[n] = path.read_bytes()
    first = checks[sizes[0]]()  # imports the engine
    times = {n: [] for n in sizes}
    floors = {n: [] for n in sizes}
    for _ in range(max(3, repeat // 3)):
        for n in sizes:
            times[n].append(timed(checks[n]))
            floors[n].append(timed(lambda data=parses[n]: parse_floor("scaling.py", data)))
    median = {n: statistics.median(times[n]) for n in sizes}
    n1, n2, n4 = sizes
    return {
        "subject_s": round(median[n4], 4), "floor_s": round(median[n1], 4),
        "ratio": round(median[n4] / median[n1], 2), "target": 4.8,
        "ratio_2n": round(median[n2] / median[n1], 2),
        "sizes": {str(n): {"lines": parses[n].count(b"\n"), "bytes": len(parses[n]),
                           "check_s": round(median[n], 4), "parse_s": round(statistics.median(floors[n]), 4),
                           "vs_parse": round(median[n] / statistics.median(floors[n]), 2)} for n in sizes},
        "findings_n": len(first.found), "error": first.error,
        "what": f"check of generated test modules of {n1}, {n2}, {n4} methods (version-guarded helpers, "
                f"nested functions, sessions, a config read by methods): {n4} methods' time / {n1}'s",
    }


# -- the worst real file -----------------------------------------------------------------

BIG_PY = 50_000
NOTEBOOKS = 6


def trees_of(dirs: list[Path]) -> list[Path]:
    """The trees in `dirs`: each one's subfolders that are git checkouts (all
    its subfolders where none is), never a folder that is itself one of `dirs`
    (`--trees T T/unseen`: T/unseen is no tree of T)."""
    given = {d.resolve() for d in dirs}
    found = []
    for d in dirs:
        subs = [sub for sub in sorted(d.iterdir()) if sub.is_dir() and sub.resolve() not in given]
        checkouts = [sub for sub in subs if (sub / ".git").exists()]
        found += checkouts or subs
    return found


def worst_candidates(dirs: list[Path]) -> list[Path]:
    """Every .py file of BIG_PY bytes or more and the NOTEBOOKS largest
    notebooks in the trees that the pre-filter passes: the files the tool's own
    walk finds (its default excludes) and parses."""
    from tfcompat_threads.codemod.prefilter import may_need_codemod
    from tfcompat_threads.lint.files import discover
    from tfcompat_threads.lint.runner import needs_codemod
    from tfcompat_threads.lint.settings import Settings

    files, _ = discover([str(d) for d in dirs], Settings().excludes)
    big, notebooks = [], []
    for name in files:
        path = Path(name)
        try:
            size = path.stat().st_size
        except OSError:
            continue
        if path.suffix == ".py" and size >= BIG_PY and may_need_codemod(path.read_bytes(), str(path)):
            big.append(path)
        elif path.suffix == ".ipynb" and needs_codemod(path.read_bytes(), str(path))[0]:
            notebooks.append((size, path))
    return big + [path for _, path in sorted(notebooks, reverse=True)[:NOTEBOOKS]]


def parse_floor(path: str, data: bytes) -> list:
    """Python's own reading of the file: ast.parse; for a notebook json.loads
    and ast.parse of each code cell (a line of IPython (%, !) made a comment).
    The modules."""
    if not path.endswith(".ipynb"):
        return [ast.parse(data)]
    notebook = json.loads(data)
    sources = []
    for cell in notebook.get("cells") or notebook.get("worksheets", [{}])[0].get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", cell.get("input", ""))
        sources.append("".join(source) if isinstance(source, list) else source)
    return parse_cells(sources)


def parse_cells(sources: list[str]) -> list:
    modules = []
    for source in sources:
        try:
            modules.append(ast.parse(source))
        except SyntaxError:
            try:
                modules.append(ast.parse("\n".join("#" + line if line.lstrip()[:1] in ("%", "!") else line
                                                    for line in source.split("\n"))))
            except SyntaxError:
                pass
    return modules


def floor_run(folders: list[str], walk: bool) -> None:
    """The part of a check no analysis can skip, in one process: the tool's
    walk, its bounded read and its pre-filter of every file, and Python's
    parse of each file that passes (a notebook: of the code cells the
    pre-filter read); with `walk`, one bare `ast.walk` of each module, the
    least a Python analysis that visits every node does."""
    from tfcompat_threads.lint.files import FileError, discover, read_bytes
    from tfcompat_threads.lint.runner import needs_codemod
    from tfcompat_threads.lint.settings import Settings

    warnings.simplefilter("ignore")  # the tool shows no parser warning either
    files, _ = discover(folders, Settings().excludes)
    for name in files:
        try:
            data = read_bytes(name)
        except FileError:
            continue
        needed, notebook = needs_codemod(data, name)
        if not needed:
            continue
        try:
            modules = parse_cells([cell.text for cell in notebook.cells]) if notebook else [ast.parse(data)]
        except (SyntaxError, ValueError):
            continue
        for module in modules if walk else ():
            for _ in ast.walk(module):
                pass


def check_in_process(path: str, data: bytes):
    """A closure that runs `check` on one file as the CLI does for each file
    (runner.process_source, the settings the CLI finds for that path, no
    cache, nothing known of its project yet): start-up (interpreter, imports,
    settings) is outside it."""
    from tfcompat_threads.codemod import project
    from tfcompat_threads.lint import commands, runner

    settings = commands._settings((path,), None, None, None, None, (), (), ())
    enabled = settings.enabled()

    def check():
        project._PROJECTS.clear()  # what the process knew of the file's project: a `check FILE` run has none
        project._ROOTS.clear()
        return runner.process_source(data, path, settings, runner.Mode.CHECK, enabled, cache=None)

    return check


def timed(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def measure_file(path: Path, repeat: int) -> dict:
    data = path.read_bytes()
    check = check_in_process(str(path), data)
    result = check()  # imports what this file needs; its findings
    checks, parses = [], []
    for _ in range(repeat):
        checks.append(timed(check))
        parses.append(timed(lambda: parse_floor(str(path), data)))
    s, f = statistics.median(checks), statistics.median(parses)
    return {"path": str(path), "bytes": len(data), "check_s": round(s, 4), "floor_s": round(f, 4),
            "ratio": round(s / f, 2), "findings": len(result.found), "error": result.error}


def bench_worstfile(work: Path, repeat: int, trees: list[Path] | None = None) -> dict:
    """check of each large real file vs Python's own parse of it. Measured in
    this process, calling the engine entry the CLI calls for each file: what
    start-up costs (interpreter, imports, settings) is not in either time.
    (Subtracting an empty file's check would not take it out: an empty file
    never imports the engine.)"""
    if not trees:
        return {"skipped": "give --trees DIR... (checkouts of bench/real_repos.tsv, and others)"}
    candidates = worst_candidates(trees_of(trees))
    legacy = ROOT / "examples" / "legacy_project" / "train.py"
    check_in_process(str(legacy), legacy.read_bytes())()  # the engine imported
    files = sorted((measure_file(path, repeat) for path in candidates), key=lambda r: r["ratio"])
    for r in files:
        error = f"  ({r['error']})" if r["error"] else ""
        print(f"  worstfile {r['ratio']:7.2f}x  {r['check_s']:8.4f} s  parse {r['floor_s']:7.4f} s  "
              f"{r['bytes'] / 1000:8.1f} KB  {r['path']}{error}", flush=True)
    if not files:
        return {"skipped": "no file of 50 KB or more, nor notebook, that the pre-filter passes"}
    worst = files[-1]
    return {"subject_s": worst["check_s"], "floor_s": worst["floor_s"], "ratio": worst["ratio"],
            "target": 3.0, "worst": worst["path"], "files": files,
            "what": f"check of each of {len(files)} real files (.py >= 50 KB, the {NOTEBOOKS} largest "
                    "notebooks) vs ast.parse (json.loads + ast.parse of the cells), in-process; the worst"}


# -- beside ruff -------------------------------------------------------------------------------


def cpu_wall(command: list[str]) -> tuple[float, float]:
    """CPU (user + system of the process and the children it waited for:
    os.wait4) and wall time of one run."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, elapsed


def ruff_config(work: Path) -> Path:
    """A ruff config banning the TF1-only names the tool reports
    (flake8-tidy-imports banned-api, rule TID251), derived from symbols.py."""
    from tfcompat_threads.codemod.symbols import TF1_ONLY

    lines = ["[lint]", 'select = ["TID251"]', "", "[lint.flake8-tidy-imports.banned-api]"]
    lines += [f'"tensorflow.{name}".msg = "TF1-only: gone in TensorFlow 2"' for name in sorted(TF1_ONLY)]
    path = work / "ruff.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def bench_ruff(work: Path, repeat: int, trees: list[Path] | None = None) -> dict:
    """A cold check over the real trees (one run over them all, --no-cache)
    beside `ruff check --no-cache --select TID251` with the banned-api list of
    the same names over the same trees (its --config file: the trees' own ruff
    settings are not read). CPU of each run and its children, and wall."""
    if not trees:
        return {"skipped": "give --trees DIR (the checkouts of bench/real_repos.tsv)"}
    ruff = shutil.which("ruff", path=str(BIN)) or shutil.which("ruff")
    if ruff is None:
        return {"skipped": "ruff is not installed (pip install ruff, next to tfcompat-threads or on PATH)"}
    folders = [str(folder) for folder in trees_of(trees)]
    config = ruff_config(work)
    ours = [*TOOL, "check", "-q", "--exit-zero", "--no-cache", *folders]
    theirs = [ruff, "check", "--no-cache", "--exit-zero", "-q", "--config", str(config), *folders]
    found = subprocess.run([*theirs[:-len(folders)], "--output-format", "concise", *folders], check=False,
                           capture_output=True, text=True).stdout
    floors = {kind: [PYTHON, str(Path(__file__).resolve()), "--floor", kind, "--trees", *folders]
              for kind in ("parse", "walk")}
    cpu_wall(ours)  # the file cache and .pyc files warm
    runs = {"ours": [], "ruff": [], "parse": [], "walk": []}
    for _ in range(max(3, repeat // 3)):
        if cache_folder() is not None:
            shutil.rmtree(cache_folder(), ignore_errors=True)
        runs["ours"].append(cpu_wall(ours))
        runs["ruff"].append(cpu_wall(theirs))
        for kind, command in floors.items():
            runs[kind].append(cpu_wall(command))
    cpu = {k: statistics.median(c for c, _ in v) for k, v in runs.items()}
    elapsed = {k: statistics.median(w for _, w in v) for k, v in runs.items()}
    from tfcompat_threads.lint.files import discover
    from tfcompat_threads.lint.settings import Settings

    files, _ = discover(folders, Settings().excludes)
    return {"subject_s": round(cpu["ours"], 3), "floor_s": round(cpu["ruff"], 3),
            "ratio": round(cpu["ours"] / cpu["ruff"], 2), "target": 3.0,
            "wall": {"subject_s": round(elapsed["ours"], 3), "floor_s": round(elapsed["ruff"], 3),
                     "ratio": round(elapsed["ours"] / elapsed["ruff"], 2)},
            "trees": len(folders), "python_files": sum(f.endswith(".py") for f in files),
            "notebooks": sum(f.endswith(".ipynb") for f in files),
            "ruff_findings": sum(" TID251 " in line for line in found.splitlines()),
            # what no analysis skips (start-up, walk, read, pre-filter, ast.parse of what passes),
            # and that with one bare ast.walk of each parsed module, beside ruff's CPU
            "floors": {kind: {"cpu_s": round(cpu[kind], 3), "ratio": round(cpu[kind] / cpu["ruff"], 2)}
                       for kind in ("parse", "walk")},
            "ruff": subprocess.run([ruff, "--version"], check=False, capture_output=True,
                                   text=True).stdout.strip(),
            "what": f"CPU of a cold check over {len(folders)} real trees vs ruff check --select TID251 "
                    "(banned-api: the same TF1 names), both --no-cache"}


BENCHES = {
    "shim": bench_shim,
    "hook": bench_hook,
    "legacy": bench_legacy,
    "scan": bench_scan,
    "memory": bench_memory,
    "upgrade": bench_upgrade,
    "bigfile": bench_bigfile,
    "realrepos": bench_realrepos,
    "worstfile": bench_worstfile,
    "scaling": bench_scaling,
    "ruff": bench_ruff,
}


TREE_BENCHES = ("realrepos", "worstfile", "ruff")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=sorted(BENCHES), action="append")
    parser.add_argument("--repeat", type=int, default=11, help="runs per figure (upgrade: a third of it)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--trees", type=Path, nargs="+", metavar="DIR",
                        help="folders of checkouts (bench/real_repos.tsv, ...): realrepos, worstfile, ruff")
    parser.add_argument("--floor", choices=("parse", "walk"),
                        help="run only the floor the ruff figure measures (over --trees) and stop")
    args = parser.parse_args()
    if args.floor:
        floor_run([str(folder) for folder in args.trees or ()], args.floor == "walk")
        return 0
    results = {}
    with tempfile.TemporaryDirectory(prefix="tfcompat-bench-") as tmp:
        work = Path(tmp)
        os.environ["TFCOMPAT_THREADS_CACHE_DIR"] = str(work / "cache")  # never the user's
        for name in args.only or BENCHES:
            repeat = max(1, args.repeat // 3) if name == "upgrade" else args.repeat
            extra = {"trees": args.trees} if name in TREE_BENCHES else {}
            results[name] = BENCHES[name](work, repeat, **extra)
            print(f"{name:8} {json.dumps(results[name])}", flush=True)
    print()
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")
    print("| figure | ours | floor | ratio | target | within |")
    print("|---|---|---|---|---|---|")
    ok = True
    for name, r in results.items():
        if "skipped" in r:
            print(f"| {name} | skipped: {r['skipped']} | | | | |")
            continue
        if name == "memory":
            within = r["peak_rss_mb"] <= r["target_mb"]
            print(f"| {name} | {r['peak_rss_mb']} MB | | | <= {r['target_mb']} MB | {'yes' if within else 'NO'} |")
        elif name == "bigfile":
            within = True
            for step in ("check", "fix"):
                s = r[step]
                fits = s["ratio"] <= s["target"]
                within &= fits
                print(f"| bigfile {step} | {s['subject_s']} s | {s['floor_s']} s | {s['ratio']}x | <= {s['target']}x "
                      f"| {'yes' if fits else 'NO'} |")
            m = r["memory"]
            fits = m["check_ratio"] <= m["target"]
            within &= fits
            print(f"| bigfile memory | {m['check_mb']} MB (fix {m['fix_mb']} MB) | {m['parse_mb']} MB "
                  f"| {m['check_ratio']}x | <= {m['target']}x | {'yes' if fits else 'NO'} |")
        elif name == "scaling":
            within = r["ratio"] <= r["target"]
            n1, n2, n4 = r["sizes"]
            print(f"| scaling {n4}/{n1} methods | {r['subject_s']} s | {r['floor_s']} s | {r['ratio']}x "
                  f"| <= {r['target']}x | {'yes' if within else 'NO'} |")
            print(f"| scaling {n2}/{n1} methods | {r['sizes'][n2]['check_s']} s | {r['floor_s']} s "
                  f"| {r['ratio_2n']}x | (shown) | |")
        elif name == "ruff":
            within = r["ratio"] <= r["target"]
            w = r["wall"]
            print(f"| ruff, CPU | {r['subject_s']} s | {r['floor_s']} s | {r['ratio']}x | <= {r['target']}x "
                  f"| {'yes' if within else 'NO'} |")
            print(f"| ruff, wall | {w['subject_s']} s | {w['floor_s']} s | {w['ratio']}x | (shown) | |")
        else:
            within = r["ratio"] <= r["target"] and r.get("others_byte_identical", True)
            print(f"| {name} | {r['subject_s']} s | {r['floor_s']} s | {r['ratio']}x | <= {r['target']}x "
                  f"| {'yes' if within else 'NO'} |")
            if name == "worstfile":
                print(f"| worstfile: the worst | {r['worst']} | | | | |")
            if "no_cache" in r:
                n = r["no_cache"]
                print(f"| {name}, --no-cache | {n['subject_s']} s | {r['floor_s']} s | {n['ratio']}x | (shown) | |")
        ok &= within
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
