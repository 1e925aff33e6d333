"""Issue 27: the codemod knows the build a repository declares. Where the
requirements name Intel's OpenMP build, OMP_NUM_THREADS sizes the pool
oneDNN's heavy ops run on (counted in tests/test_openmp_build.py), so TFT010
does not tell the program to drop it; on the official wheels it does."""

from __future__ import annotations

import pytest

from tests.test_cli import cli

PROGRAM = "import os\nimport tensorflow as tf\nos.environ['OMP_NUM_THREADS'] = '4'\n"


@pytest.mark.parametrize(("requirement", "reported"), [
    ("intel-tensorflow==2.14.0\n", False),
    ("Intel_Tensorflow>=2.12  # Intel's build\n", False),
    ("tensorflow-cpu==2.15.*\n", True),
    ("numpy<2\n", True),
])
def test_tft010_knows_the_build_the_requirements_declare(tmp_path, requirement, reported):
    (tmp_path / "requirements.txt").write_text(requirement)
    (tmp_path / "train.py").write_text(PROGRAM)
    result = cli("check", "train.py", cwd=tmp_path)
    assert ("TFT010" in result.output) is reported, result.output


def test_show_settings_names_the_declared_build(tmp_path):
    (tmp_path / "requirements.txt").write_text("intel-tensorflow==2.14.0\n")
    result = cli("check", "--show-settings", ".", cwd=tmp_path)
    assert "# tensorflow build: openmp" in result.output, result.output
    (tmp_path / "requirements.txt").write_text("tensorflow==2.15.0\n")
    assert "tensorflow build" not in cli("check", "--show-settings", ".", cwd=tmp_path).output
