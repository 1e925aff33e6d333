"""probe: start TensorFlow in a fresh process with given pool sizes, run an op,
and count the pools it really made."""

from __future__ import annotations

import json
import subprocess
import sys

from . import ToolError, child_env

PROBE_CHILD = r"""
import json, sys
import tensorflow as tf
import tfcompat_threads as tct
from tfcompat_threads.measure import threads
intra, inter = int(sys.argv[1]), int(sys.argv[2])
report = tct.configure(intra_op_parallelism_threads=intra, inter_op_parallelism_threads=inter)
x = tf.random.uniform((800, 800))
for _ in range(2):
    y = tf.matmul(x, x)
float(tf.reduce_sum(y))
names = threads.thread_names()
main = threads.main_thread_name()
print(json.dumps({
    "tensorflow": tf.__version__,
    "names": names,
    "main": main,
    "busy": threads.busy_threads(),
    "applied": [a.how for a in report.applied],
    "effective": tct.effective().as_dict(),
}))
"""


def probe(intra: int = 0, inter: int = 0, python: str = sys.executable, timeout: float = 300) -> dict:
    """Start a fresh Python with TensorFlow, apply the values through the shim,
    run an op, and count the pools it really made."""
    from . import threads

    proc = subprocess.run(
        [python, "-c", PROBE_CHILD, str(intra), str(inter)],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=timeout,
    )
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
        if "No module named 'tensorflow'" in proc.stderr:
            raise ToolError(f"TensorFlow is not installed for {python}: pip install tensorflow-cpu")
        raise ToolError(f"the probe process failed (exit {proc.returncode}):\n{tail}")
    child = json.loads(proc.stdout.strip().splitlines()[-1])
    sizes = threads.pool_sizes(child["names"], child["main"], child["busy"])
    return {
        "tensorflow": child["tensorflow"],
        "requested": {"intra_op": intra, "inter_op": inter},
        "observed": {"intra_op": sizes["intra_op"], "inter_op": sizes["inter_op"]},
        "threads": child["names"],
        "how_counted": sizes["how"],
        "applied": child["applied"],
        "effective": {k: child["effective"][k] for k in ("intra_op", "inter_op")},
    }


def format_probe(data: dict) -> str:
    requested = data["requested"]
    observed = data["observed"]
    lines = [
        f"TensorFlow {data['tensorflow']}: asked intra_op={requested['intra_op']} inter_op={requested['inter_op']} "
        "(0 = TensorFlow picks)",
        f"  observed: intra-op pool {observed['intra_op']} threads, inter-op pool {observed['inter_op']} threads",
        f"  threads of the process by name: {data['threads']}",
        f"  counted from: {data['how_counted']}",
        f"  applied through the shim: {'; '.join(data['applied']) or 'nothing (0 = default)'}",
    ]
    return "\n".join(lines) + "\n"
