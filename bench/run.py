"""Speed and memory of tfcompat-threads, each as a ratio against a floor
measured in the same run (median of repeated, interleaved runs).

    python bench/run.py                 # every figure
    python bench/run.py --only hook     # one figure
    python bench/run.py --json out.json
    python bench/run.py --trees DIR     # with the real-repository figure (bench/real_repos.tsv)

Run it with the Python of an environment that has tfcompat-threads installed
(and tensorflow, for the `upgrade` figure, which compares with tf_upgrade_v2).
Plain Python and public tools only; nothing here is a test: no test asserts a
time.
"""

from __future__ import annotations

import argparse
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
from pathlib import Path

PYTHON = sys.executable
BIN = Path(PYTHON).parent
TOOL = [str(BIN / "tfcompat-threads")] if (BIN / "tfcompat-threads").exists() else [PYTHON, "-m", "tfcompat_threads"]
ROOT = Path(__file__).resolve().parent.parent
READ_ALL = "import pathlib, sys\nfor p in pathlib.Path(sys.argv[1]).rglob('*.py'):\n    p.read_bytes()\n"


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


def stdlib_copy(work: Path) -> Path:
    copy = work / "stdlib"
    if not copy.exists():
        shutil.copytree(
            sysconfig.get_paths()["stdlib"],
            copy,
            ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.so", "*.pyc"),
            symlinks=True,
        )
    return copy


def bench_scan(work: Path, repeat: int) -> dict:
    copy = stdlib_copy(work)
    result = compare([*TOOL, "check", "-q", str(copy)], [PYTHON, "-c", READ_ALL, str(copy)], repeat)
    return {**result, "files": sum(1 for _ in copy.rglob("*.py")), "target": 2.0,
            "what": "check over a copy of the standard library vs reading every .py file in Python"}


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


def bench_realrepos(work: Path, repeat: int, trees: Path | None = None) -> dict:
    """check + fix over real TF1-era trees (all in one folder, one run each) vs
    tf_upgrade_v2 --intree on each tree (it takes one tree a run)."""
    if trees is None:
        return {"skipped": "give --trees DIR (the checkouts of bench/real_repos.tsv)"}
    if shutil.which("tf_upgrade_v2", path=str(BIN)) is None:
        return {"skipped": "tf_upgrade_v2 is not installed (install tensorflow next to tfcompat-threads)"}
    names = sorted(p.name for p in trees.iterdir() if p.is_dir())
    together = work / "repos"

    def fresh():
        shutil.rmtree(together, ignore_errors=True)
        together.mkdir()
        for name in names:
            shutil.copytree(trees / name, together / name, symlinks=True)

    ours, uncached = [], []
    for _ in range(max(1, repeat // 5)):
        fresh()  # check starts with an empty cache; fix uses what check kept, as when a user runs them
        ours.append(wall([*TOOL, "check", "-q", "--exit-zero", str(together)]) +
                    wall([*TOOL, "fix", "-q", "--exit-zero", str(together)], warm=True))
        fresh()
        uncached.append(wall([*TOOL, "check", "-q", "--exit-zero", "--no-cache", str(together)]) +
                        wall([*TOOL, "fix", "-q", "--exit-zero", "--no-cache", str(together)]))
    theirs = 0.0
    for name in names:
        out = work / "upgraded"
        shutil.rmtree(out, ignore_errors=True)
        theirs += wall([str(BIN / "tf_upgrade_v2"), "--intree", str(trees / name), "--outtree", str(out),
                        "--reportfile", str(work / "report.txt")])
    s, n = statistics.median(ours), statistics.median(uncached)
    return {"subject_s": round(s, 2), "floor_s": round(theirs, 2), "ratio": round(s / theirs, 4),
            "target": round(1 / 30, 4), "trees": len(names),
            "no_cache": {"subject_s": round(n, 2), "ratio": round(n / theirs, 4)},
            "what": f"check + fix over {len(names)} real TF1-era trees vs tf_upgrade_v2 --intree on each"}


BENCHES = {
    "shim": bench_shim,
    "hook": bench_hook,
    "legacy": bench_legacy,
    "scan": bench_scan,
    "memory": bench_memory,
    "upgrade": bench_upgrade,
    "bigfile": bench_bigfile,
    "realrepos": bench_realrepos,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=sorted(BENCHES), action="append")
    parser.add_argument("--repeat", type=int, default=11, help="runs per figure (upgrade: a third of it)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--trees", type=Path, help="checkouts of bench/real_repos.tsv, for `realrepos`")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory(prefix="tfcompat-bench-") as tmp:
        work = Path(tmp)
        os.environ["TFCOMPAT_THREADS_CACHE_DIR"] = str(work / "cache")  # never the user's
        for name in args.only or BENCHES:
            repeat = max(1, args.repeat // 3) if name == "upgrade" else args.repeat
            extra = {"trees": args.trees} if name == "realrepos" else {}
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
        else:
            within = r["ratio"] <= r["target"] and r.get("others_byte_identical", True)
            print(f"| {name} | {r['subject_s']} s | {r['floor_s']} s | {r['ratio']}x | <= {r['target']}x "
                  f"| {'yes' if within else 'NO'} |")
            if "no_cache" in r:
                n = r["no_cache"]
                print(f"| {name}, --no-cache | {n['subject_s']} s | {r['floor_s']} s | {n['ratio']}x | (shown) | |")
        ok &= within
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
