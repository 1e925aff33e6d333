"""`tune --plot FILE`: a PNG of the time per grid point with its spread,
drawn from a real run of tune on the row's TensorFlow; without matplotlib,
one line and exit 2 before anything runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tfproc import TF_PYTHON

# The tool runs on this Python (the newest row, which has the plot extra); the
# command it tunes on the row's TensorFlow.
CLI = [sys.executable, "-m", "tfcompat_threads"]
WORKLOAD = (
    "import tensorflow as tf\n"
    "x = tf.random.uniform((300, 300))\n"
    "for _ in range(10):\n"
    "    x = tf.tanh(tf.matmul(x, x) / 300.0)\n"
    "float(tf.reduce_sum(x))\n"
)


@pytest.mark.tf(own_row=True)  # what tune measures, on every row: tests/test_tools.py
def test_tune_plot_writes_a_png_with_every_grid_point(tmp_path):
    from matplotlib import image
    from PIL import Image

    picture = tmp_path / "tune.png"
    done = subprocess.run([*CLI, "tune", "--intra", "1,2", "--inter", "1", "--repeat", "2", "--warmup", "0",
                           "--json", "--plot", str(picture), "--", TF_PYTHON, "-c", WORKLOAD],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(done.stdout)
    assert f"tune: drew {picture}" in done.stderr.splitlines()
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = image.imread(picture)  # matplotlib's own reader: a PNG it can decode
    height, width, channels = pixels.shape
    assert (width, height) == (600, 450) and channels in (3, 4)
    # something is drawn: the blue and the green of the points, not only the frame
    rgb = (pixels[..., :3] * 255).round().astype(int)
    blue = ((abs(rgb[..., 0] - 31) < 12) & (abs(rgb[..., 1] - 119) < 12) & (abs(rgb[..., 2] - 180) < 12)).sum()
    green = ((abs(rgb[..., 0] - 44) < 12) & (abs(rgb[..., 1] - 160) < 12) & (abs(rgb[..., 2] - 44) < 12)).sum()
    assert blue > 50 and green > 50, (blue, green)
    # the grid's points, in tune's order, named in the PNG's own text chunk
    labels = [f"{r['intra_op'] or 'dflt'}/{r['inter_op'] or 'dflt'}" for r in data["results"]]
    assert labels == ["dflt/dflt", "1/1", "2/1"]
    assert Image.open(picture).text["Description"] == "tune: " + ", ".join(labels)


def test_tune_plot_without_matplotlib_is_one_line_and_exit_2_before_any_run(tmp_path):
    without = ("import sys; sys.modules['matplotlib'] = None; sys.argv = ['tfcompat-threads', *sys.argv[1:]]; "
               "from tfcompat_threads.cli import main; main()")
    marker = tmp_path / "ran"
    done = subprocess.run([sys.executable, "-c", without, "tune", "--plot", str(tmp_path / "t.png"), "--",
                           sys.executable, "-c", f"open({str(marker)!r}, 'w')"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"Error: --plot needs matplotlib, which is not installed for {sys.executable}: "
        "pip install 'tfcompat-threads[plot]'"]
    assert not marker.exists() and not (tmp_path / "t.png").exists()


def test_the_plot_test_runs_on_the_newest_row_only(tmp_path):
    """`@pytest.mark.tf(own_row=True)` (tests/conftest.py): collected where the
    scenarios run on the tests' own interpreter and on the row scripts/test
    calls the newest (TFCOMPAT_TEST_NEWEST_ROW=1), deselected on another
    row (here a wrapper that runs the row's interpreter: the same release,
    so only own_row tells them apart)."""
    other = tmp_path / "python"
    other.write_text(f'#!/bin/sh\nexec {TF_PYTHON} "$@"\n')
    other.chmod(0o755)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q", "--collect-only",
               "-m", "tf", f"{__file__}::test_tune_plot_writes_a_png_with_every_grid_point"]
    ids = {}
    base = {k: v for k, v in os.environ.items() if k not in ("TFCOMPAT_TEST_TF_PYTHON", "TFCOMPAT_TEST_NEWEST_ROW")}
    rows = {"own": base, "other": {**base, "TFCOMPAT_TEST_TF_PYTHON": str(other)},
            "newest": {**base, "TFCOMPAT_TEST_TF_PYTHON": str(other), "TFCOMPAT_TEST_NEWEST_ROW": "1"}}
    for row, env in rows.items():
        done = subprocess.run(command, capture_output=True, text=True, timeout=300,
                              cwd=Path(__file__).parent.parent, env=env)
        ids[row] = [line for line in done.stdout.splitlines() if "::" in line]
        assert done.returncode in (0, 5), done.stdout + done.stderr
    test = "tests/test_tune_plot.py::test_tune_plot_writes_a_png_with_every_grid_point"
    assert ids == {"own": [test], "other": [], "newest": [test]}, ids
