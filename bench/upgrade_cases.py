"""TensorFlow's own upgrade tests as a second judge: tfcompat-threads and tf_upgrade_v2 on them.

    python bench/upgrade_cases.py --cases tf_upgrade_v2_test.py --python TF_PYTHON [--json OUT]

--cases: tensorflow/tools/compatibility/tf_upgrade_v2_test.py of TensorFlow's
repository (fetch it for the run; never commit it). --python: a TensorFlow 2
interpreter with tf_upgrade_v2 beside it (the tests' tf-latest row). The cases:

- every `self._upgrade(text, ...)` of the file whose text touches sessions,
  configs, GPU options or thread settings, as written there, and TF's expected
  output from the assertEqual that follows it;
- every import header of the file's import cases (test_import_*: the aliases
  TensorFlow is imported by), each heading the same small session program,
  which asks for 2 intra-op and 1 inter-op threads;
- every row of the session family of the rename table tf_upgrade_v2 applies
  (all_renames_v2, the table testAllAPI holds it to), each used in such a program.

Each program goes through `tfcompat-threads fix`, `fix --unsafe-fixes` and
tf_upgrade_v2; each output runs on --python with its threads counted (from
/proc/self/task, as tests/tfproc.py does), and again with the asked sizes in
TF_NUM_INTRAOP_THREADS / TF_NUM_INTEROP_THREADS (TensorFlow's own way, from
2.4 on): "ok" when it runs with as many threads as asked that way, "lost" when
it runs with others (a setting lost), "crash" when it dies. Per case ours
against tf_upgrade_v2's: better / same / worse, and "wrong" when ours crashes
or loses a setting where tf_upgrade_v2's keeps it. Ask TensorFlow nothing
else; nothing here downloads.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tests.tfproc import PRELUDE  # the thread counter the tests use
from tfcompat_threads.codemod import symbols

# Words that make a case of the file one of ours: the session family's names
# (codemod/symbols.py TF1_RENAMES), and the config fields that size threads or GPUs.
TOUCHES = re.compile(r"\b(" + "|".join(sorted({n.rsplit(".", 1)[-1] for n in symbols.TF1_ONLY})) +
                     r"|gpu_options|visible_device_list|\w*parallelism_threads|set_session|hvd)\b")
ASKED = {"TF_NUM_INTRAOP_THREADS": "2", "TF_NUM_INTEROP_THREADS": "1"}
CONFIG = "{tf}.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=1)"
SESSION_PROGRAM = """\
config = {config}
with {tf}.Session(config=config) as sess:
    x = {tf}.ones([200, 200])
    sess.run({tf}.reduce_sum({tf}.matmul(x, x)))
"""
# How a program uses each row of the session family (default: a session
# program that also reads the name, so the rename must make it resolve).
USES = {
    "get_default_session": """\
g = {tf}.Graph()
with g.as_default():
    y = {tf}.reduce_sum({tf}.matmul({tf}.ones([200, 200]), {tf}.ones([200, 200])))
with {tf}.Session(graph=g, config={config}):
    {tf}.get_default_session().run(y)
""",
    "InteractiveSession": """\
sess = {tf}.InteractiveSession(config={config})
x = {tf}.ones([200, 200])
print({tf}.reduce_sum({tf}.matmul(x, x)).eval())
""",
    "train.ChiefSessionCreator": """\
with {tf}.Graph().as_default():
    y = {tf}.reduce_sum({tf}.matmul({tf}.ones([200, 200]), {tf}.ones([200, 200])))
    creator = {tf}.train.ChiefSessionCreator(config={config})
    with {tf}.train.MonitoredSession(session_creator=creator) as sess:
        sess.run(y)
""",
    "train.MonitoredTrainingSession": """\
with {tf}.Graph().as_default():
    y = {tf}.reduce_sum({tf}.matmul({tf}.ones([200, 200]), {tf}.ones([200, 200])))
    with {tf}.train.MonitoredTrainingSession(config={config}) as sess:
        sess.run(y)
""",
    "train.SingularMonitoredSession": """\
with {tf}.Graph().as_default():
    y = {tf}.reduce_sum({tf}.matmul({tf}.ones([200, 200]), {tf}.ones([200, 200])))
    with {tf}.train.SingularMonitoredSession(config={config}) as sess:
        sess.run(y)
""",
    "GPUOptions": """\
config = {tf}.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=1,
                        gpu_options={tf}.GPUOptions(allow_growth=True))
with {tf}.Session(config=config) as sess:
    x = {tf}.ones([200, 200])
    sess.run({tf}.reduce_sum({tf}.matmul(x, x)))
""",
}
# Rows that switch eager execution: a program of its own would test the switch, not the rename.
SKIP_ROWS = {"enable_eager_execution", "disable_eager_execution", "disable_v2_behavior"}
# Rows that take the config (each its own program); the others are read by one program.
CALLED = {"ConfigProto", "Session", "train.Server", "train.Supervisor", "keras.backend.get_session"}


def literal(node: ast.AST, env: dict[str, str]) -> str | None:
    """The string an expression of the test file spells (constants, names bound to them, +)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = literal(node.left, env), literal(node.right, env)
        return None if left is None or right is None else left + right
    return None


def file_cases(path: Path) -> tuple[list[dict], list[str]]:
    """(the file's _upgrade cases that touch sessions, the import headers of its import cases)."""
    cases, headers = [], []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef):
            continue
        env: dict[str, str] = {}
        pending = None
        for node in ast.walk(function):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = literal(node.value, env)
                if value is not None:
                    env[node.targets[0].id] = value
                    if node.targets[0].id == "import_header" and function.name.startswith("test_import"):
                        headers.append(value)
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            if node.func.attr == "_upgrade" and node.args:
                text = literal(node.args[0], env)
                if text is not None and TOUCHES.search(text):
                    pending = {"name": f"{function.name}:{node.lineno}", "text": text, "expected": None}
                    cases.append(pending)
            elif node.func.attr == "assertEqual" and pending is not None and pending["expected"] is None:
                values = [literal(a, env) for a in node.args[:2]]
                pending["expected"] = next((v for v in values if v is not None), None)
    return cases, list(dict.fromkeys(headers))


def alias_of(header: str) -> str | None:
    """The name a header binds TensorFlow (any of its API modules) to, `tf` first."""
    bound = []
    for node in ast.parse(header).body:
        for alias in getattr(node, "names", []):
            module = getattr(node, "module", None)
            full = f"{module}.{alias.name}" if module else alias.name
            if full.startswith("tensorflow") and alias.name != "*":
                bound.append(alias.asname or alias.name.split(".")[0])
    return "tf" if "tf" in bound else (bound or [None])[0]


def programs(cases_file: Path, renames: dict[str, str], python: str) -> list[dict]:
    found, headers = file_cases(cases_file)
    out = [{"name": c["name"], "source": c["text"] + "\n", "expected": c["expected"]} for c in found]
    importable = headers_that_import(headers, python)
    for header in headers:
        tf = alias_of(header)
        if tf is None or header not in importable:
            print(f"(import case left out: it binds no TensorFlow module, or does not import on TF2: "
                  f"{' / '.join(header.strip().splitlines())})")
            continue
        body = SESSION_PROGRAM.format(tf=tf, config=CONFIG.format(tf=tf))
        out.append({"name": "import: " + " / ".join(header.strip().splitlines()), "source": header + body})
    config = CONFIG.format(tf="tf")
    read = []
    for name in sorted(symbols.TF1_ONLY):
        if f"tf.{name}" not in renames or name in SKIP_ROWS:
            continue
        if name not in USES and name not in CALLED:
            read.append(name)  # one program reads all the others
            continue
        body = USES.get(name) or SESSION_PROGRAM + f"print({{tf}}.{name})\n"
        out.append({"name": f"rename: tf.{name} -> {renames[f'tf.{name}']}",
                    "source": "import tensorflow as tf\n" + body.format(tf="tf", config=config)})
    body = SESSION_PROGRAM + "".join(f"print({{tf}}.{name})\n" for name in read)
    out.append({"name": f"rename: the {len(read)} other rows (hooks, SessionRun*, Scaffold, ...) read",
                "source": "import tensorflow as tf\n" + body.format(tf="tf", config=config)})
    return out


def headers_that_import(headers: list[str], python: str) -> set[str]:
    """The import headers that run on --python (one process for all)."""
    code = ("import json, sys\nok = []\nfor h in json.loads(sys.stdin.read()):\n    try:\n        exec(h, {})\n"
            "        ok.append(h)\n    except Exception:\n        pass\nprint(json.dumps(ok))")
    proc = subprocess.run([python, "-c", code], input=json.dumps(headers), capture_output=True, text=True,
                          check=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


def tf_renames(python: str) -> dict[str, str]:
    code = "import json\nfrom tensorflow.tools.compatibility import all_renames_v2\nprint(json.dumps(all_renames_v2.symbol_renames))"
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True,
                          env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    return json.loads(proc.stdout.strip().splitlines()[-1])


def ours(source: str, work: Path, *flags: str) -> str:
    path = work / "ours.py"
    path.write_text(source)
    subprocess.run([sys.executable, "-m", "tfcompat_threads", "fix", "-q", "--no-cache", *flags, str(path)],
                   capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(HERE.parent)})
    return path.read_text()


def theirs(source: str, work: Path, python: str) -> str:
    infile, outfile = work / "in.py", work / "out.py"
    infile.write_text(source)
    upgrade = str(Path(python).parent / "tf_upgrade_v2")
    subprocess.run([upgrade, "--infile", str(infile), "--outfile", str(outfile),
                    "--reportfile", str(work / "report.txt")], capture_output=True, text=True, cwd=work)
    return outfile.read_text() if outfile.exists() else source


_RUNS: dict[tuple[str, bool], dict] = {}


def execute(program: str, python: str, asked: bool) -> dict:
    key = (program, asked)
    if key not in _RUNS:
        env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", **(ASKED if asked else {})}
        code = PRELUDE + "\n" + program + "\nemit()\n"
        proc = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, timeout=300)
        line = next((l for l in proc.stdout.splitlines() if l.startswith("RESULT ")), None)
        if proc.returncode != 0 or line is None:
            error = (proc.stderr.strip().splitlines() or ["?"])[-1]
            _RUNS[key] = {"crash": error[:120]}
        else:
            _RUNS[key] = {"threads": sum(json.loads(line[7:])["threads"].values())}
    return _RUNS[key]


def state(program: str, python: str) -> tuple[str, str]:
    got = execute(program, python, asked=False)
    if "crash" in got:
        return "crash", got["crash"]
    reference = execute(program, python, asked=True)
    if "crash" in reference or reference["threads"] != got["threads"]:
        return "lost", f"{got['threads']} threads, {reference.get('threads')} when asked TensorFlow's way"
    return "ok", f"{got['threads']} threads"


RANK = {"crash": 0, "lost": 1, "ok": 2}


def verdict(mine: str, tf: str) -> str:
    if mine != "ok" and tf == "ok":
        return "wrong"
    return "better" if RANK[mine] > RANK[tf] else "worse" if RANK[mine] < RANK[tf] else "same"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=Path, required=True, help="tf_upgrade_v2_test.py of TensorFlow")
    parser.add_argument("--python", required=True, help="a TensorFlow 2 interpreter with tf_upgrade_v2")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows = []
    cases = programs(args.cases, tf_renames(args.python), args.python)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        for case in cases:
            outputs = {"ours": ours(case["source"], work), "ours-unsafe": ours(case["source"], work, "--unsafe-fixes"),
                       "tf_upgrade_v2": theirs(case["source"], work, args.python)}
            states = {name: state(text, args.python) for name, text in outputs.items()}
            row = {"case": case["name"], **{k: v[0] for k, v in states.items()},
                   "safe": verdict(states["ours"][0], states["tf_upgrade_v2"][0]),
                   "unsafe": verdict(states["ours-unsafe"][0], states["tf_upgrade_v2"][0]),
                   "why": {k: v[1] for k, v in states.items()}}
            if case.get("expected") is not None:
                row["tf_upgrade_v2 as its test expects"] = outputs["tf_upgrade_v2"] == case["expected"]
            rows.append(row)
            print(f"{row['case'][:70]:70}  ours {row['ours']:5} unsafe {row['ours-unsafe']:5} "
                  f"tf {row['tf_upgrade_v2']:5}  {row['safe']:6} / {row['unsafe']}", flush=True)
    for column in ("safe", "unsafe"):
        counts = {v: sum(r[column] == v for r in rows) for v in ("better", "same", "worse", "wrong")}
        label = "fix" if column == "safe" else "fix --unsafe-fixes"
        print(f"{label}: {len(rows)} cases: " + ", ".join(f"{k} {n}" for k, n in counts.items()))
    for row in rows:
        if "crash" in (row["ours"], row["ours-unsafe"], row["tf_upgrade_v2"]) or "lost" in row.values():
            print(f"  {row['case']}: {row['why']}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
