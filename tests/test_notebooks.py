"""Notebooks: code cells only, magics kept, only changed cells rewritten."""

import json

import pytest

from tests.test_cli import cli

CELLS = [
    {"cell_type": "markdown", "metadata": {}, "source": ["# Train\n", "tf.ConfigProto() in markdown stays"]},
    {
        "cell_type": "code",
        "execution_count": 1,
        "metadata": {"tags": ["setup"]},
        "outputs": [{"name": "stdout", "output_type": "stream", "text": ["tf.ConfigProto() in an output\n"]}],
        "source": ["%matplotlib inline\n", "import tensorflow as tf\n", "from keras import backend as K"],
    },
    {
        "cell_type": "code",
        "execution_count": 2,
        "metadata": {},
        "outputs": [],
        "source": [
            "!nproc\n",
            "config = tf.ConfigProto(intra_op_parallelism_threads=2)\n",
            "config.gpu_options.allow_growth = True",
        ],
    },
    {"cell_type": "code", "execution_count": 3, "metadata": {}, "outputs": [],
     "source": "K.set_session(tf.Session(config=config))\nmodel.summary?"},
    {"cell_type": "code", "execution_count": 4, "metadata": {}, "outputs": [],
     "source": ["%%bash\n", "echo tf.ConfigProto()"]},
    {"cell_type": "code", "execution_count": 5, "metadata": {}, "outputs": [], "source": ["x = tf.ones((2, 2))"]},
]


def notebook(tmp_path, indent=1):
    document = {"cells": CELLS, "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "train.ipynb"
    path.write_text(json.dumps(document, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def test_findings_carry_the_cell(tmp_path):
    path = notebook(tmp_path)
    result = cli("check", "--output-format", "json", str(path))
    assert result.exit_code == 1
    [finding] = json.loads(result.stdout)
    assert (finding["code"], finding["cell"], finding["location"]["row"]) == ("TFT001", 3, 1)
    text = cli("check", str(path)).stdout
    assert f"{path}:cell 3:1:15: TFT001" in text


def test_fix_rewrites_only_changed_cells(tmp_path):
    path = notebook(tmp_path, indent=1)
    before = json.loads(path.read_text())
    assert cli("fix", str(path)).exit_code == 0
    raw = path.read_text()
    after = json.loads(raw)
    assert raw.endswith("}\n") and raw.startswith('{\n "cells": [\n  {\n   "cell_type"'), "indent 1 kept"
    cells = after["cells"]
    assert cells[0] == before["cells"][0]  # markdown
    assert cells[4] == before["cells"][4]  # %%bash cell
    assert cells[5] == before["cells"][5]  # untouched code cell
    assert cells[1]["outputs"] == before["cells"][1]["outputs"]
    assert cells[1]["source"] == ["%matplotlib inline\n", "import tensorflow as tf"]  # keras import gone
    assert cells[2]["source"] == [
        "!nproc\n",
        "tf.config.threading.set_intra_op_parallelism_threads(2)\n",
        "for gpu in tf.config.list_physical_devices('GPU'):\n",
        "    tf.config.experimental.set_memory_growth(gpu, True)",
    ]
    assert cells[3]["source"] == "model.summary?", "a string source stays a string; magics kept"
    assert cells[1]["metadata"] == {"tags": ["setup"]} and cells[1]["execution_count"] == 1
    assert cli("check", str(path)).exit_code == 0


def test_only_the_changed_cells_json_is_written(tmp_path):
    """Bytes json.dumps would not write (a space at a line end, Windows line
    endings) stay where no cell changed; the changed cell is written as the
    file writes its cells."""
    for newline in ("\n", "\r\n"):
        path = notebook(tmp_path)
        odd = path.read_text().replace('\n "nbformat"', '  \n "nbformat"').replace("\n", newline)
        path.write_bytes(odd.encode())
        assert cli("fix", str(path)).exit_code == 0
        new = path.read_bytes().decode()
        assert '  ' + newline + ' "nbformat"' in new and new.count("\r\n") == (new.count("\n") if newline == "\r\n" else 0)
        assert json.loads(new)["cells"][2]["source"][1] == "tf.config.threading.set_intra_op_parallelism_threads(2)\n"
        assert cli("check", str(path)).exit_code == 0


def layouts(document: dict) -> dict[str, str]:
    """The notebook as other writers lay out JSON."""
    colab = json.dumps(document, indent=2).replace("<", "\\u003c").replace(">", "\\u003e")
    inline = json.dumps(document, indent=1).replace(
        '"outputs": [\n', '"outputs": [').replace('"text": [\n      "tf', '"text": ["tf')
    return {
        "minified": json.dumps(document, separators=(",", ":")),
        "tabs": json.dumps(document, indent="\t"),
        "spaced keys": json.dumps(document, indent=1).replace('"execution_count": 2,', '"execution_count" : 2,'),
        "inline outputs": inline,
        "colab escapes": colab,
    }


def test_a_notebook_in_any_json_layout_is_fixed_with_only_its_sources_text_replaced(tmp_path):
    """Minified, tab-indented, outputs inline, Colab's `\\u003c` escapes:
    `fix` replaces the changed cells' source text in the file's bytes, laid
    out as that source was, and every other byte stays."""
    cells = [dict(cell) for cell in CELLS]
    cells[1] = dict(cells[1], outputs=[{"output_type": "display_data", "data": {"text/html": ["<b>x</b>"]}}])
    document = {"cells": cells, "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}
    for name, text in layouts(document).items():
        path = tmp_path / f"{name}.ipynb"
        path.write_text(text, encoding="utf-8")
        assert cli("fix", str(path)).exit_code == 0, name
        new = path.read_text(encoding="utf-8")
        fixed = json.loads(new)
        assert fixed["cells"][2]["source"][1] == "tf.config.threading.set_intra_op_parallelism_threads(2)\n", name
        for fixed_cell, cell in zip(fixed["cells"], document["cells"]):
            fixed_cell["source"] = cell["source"]
        assert fixed == document, name  # all but the sources as they were
        changed = [i for i, cell in enumerate(json.loads(new)["cells"]) if cell != document["cells"][i]]
        first = text.index('"source"', text.index('"execution_count"'))  # cell 1's source
        assert changed[0] == 1 and new[:first] == text[:first], name  # before the first change, byte for byte
        assert new.endswith(text[text.index('"source"', text.index('%%bash') - 40):]), name
        assert ("\\u003c" in new) == (name == "colab escapes"), name
        assert cli("check", str(path)).exit_code == 0, name


def test_broken_notebook_is_an_error(tmp_path):
    path = tmp_path / "bad.ipynb"
    path.write_bytes(b'{"cells": [ tensorflow ConfigProto Session')
    result = cli("check", str(path))
    assert result.exit_code == 2 and "invalid JSON" in result.stderr


def test_magics_in_blocks_and_with_continuation_lines(tmp_path):
    source = [
        "import sys\n",
        "import tensorflow as tf\n",
        "if 'google.colab' in sys.modules:\n",
        "  %tensorflow_version 1.x\n",
        "!t2t-trainer \\\n",
        "  --data_dir=$DATA_DIR \\\n",
        "  --model=$MODEL\n",
        "config = tf.ConfigProto(intra_op_parallelism_threads=1)\n",
        "sess = tf.InteractiveSession(config=config)",
    ]
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": source}
    document = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "colab.ipynb"
    path.write_text(json.dumps(document, indent=1) + "\n")
    assert cli("fix", str(path)).exit_code == 0
    assert json.loads(path.read_text())["cells"][0]["source"] == [
        *source[:7],
        "tf.config.threading.set_intra_op_parallelism_threads(1)",
    ]


# -- magics that run Python: their code reads the notebook's names (issue 23) -----------------

SESSION_CELL = ("import tensorflow as tf\n"
                "config = tf.ConfigProto(intra_op_parallelism_threads=1)\n"
                "config.gpu_options.allow_growth = True\n"
                "sess = tf.InteractiveSession(config=config)")
READERS_IN_MAGICS = [
    "%%time\nprint(len(sess.list_devices()))",
    "%%timeit -n 1 -r 1\nsess.list_devices()",
    "%%capture out\nsess.list_devices()",
    "%timeit -n 1 -r 1 sess.list_devices()",
    "%time print(len(sess.list_devices()))",
    "%prun -q -s cumulative sess.list_devices()",
]


def two_cells(tmp_path, second: str):
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
             for source in (SESSION_CELL, second)]
    document = {"cells": cells, "metadata": {"language_info": {"name": "python"}}, "nbformat": 4,
                "nbformat_minor": 5}
    path = tmp_path / "magics.ipynb"
    path.write_text(json.dumps(document, indent=1) + "\n")
    return path


def binds(source: str, name: str) -> bool:
    import ast

    return any(type(node) is ast.Name and node.id == name and type(node.ctx) is ast.Store
               for node in ast.walk(ast.parse(source)))


@pytest.mark.parametrize("reader", READERS_IN_MAGICS)
def test_a_session_read_in_a_magic_is_not_deleted(tmp_path, reader):
    """The session's only reader is a magic's code: the default fix keeps
    it (renamed: it is used), and the magic's cell stays as it was (0.x
    deleted `sess`: NameError in the magic)."""
    path = two_cells(tmp_path, reader)
    assert cli("fix", str(path)).exit_code == 0
    first, second = (cell["source"] for cell in json.loads(path.read_text())["cells"])
    assert binds(first, "sess") and "tf.compat.v1.InteractiveSession(config=config)" in first
    assert second == reader


def magic_code(source: str) -> str:
    """What IPython runs of a cell in these tests: a cell magic's body, a line
    magic's statement (after its options), as plain Python."""
    lines = source.splitlines()
    if lines[0].startswith("%%"):
        return "\n".join(lines[1:])
    words = lines[0].split()
    while words[1].startswith("-"):
        words = words[:1] + words[2 + (words[1] in ("-n", "-r", "-s")):]
    return " ".join(words[1:])


@pytest.mark.tf
@pytest.mark.parametrize("reader", READERS_IN_MAGICS[:1] + READERS_IN_MAGICS[3:4])
def test_the_fixed_notebook_runs_its_magic_on_tensorflow(tmp_path, reader):
    from tests.tfproc import run

    path = two_cells(tmp_path, reader)
    assert cli("fix", str(path)).exit_code == 0
    first, second = (cell["source"] for cell in json.loads(path.read_text())["cells"])
    result = run(first + "\n" + magic_code(second) + "\nemit(devices=len(sess.list_devices()))\n")
    assert result["devices"] >= 1


def test_code_in_a_line_magic_is_fixed_and_the_magic_kept(tmp_path):
    path = two_cells(tmp_path, "%time s = tf.Session()\n%time print(not valid python")
    assert cli("fix", str(path)).exit_code == 0
    second = json.loads(path.read_text())["cells"][1]["source"]
    assert second == "%time s = tf.compat.v1.Session()\n%time print(not valid python"


def test_a_parse_error_is_placed_as_findings_are(tmp_path):
    """`path:cell N:line:col:` (0.x printed `path:line:col: cell N:`, and a
    `path:line:col` reader went to that line of the JSON file)."""
    path = two_cells(tmp_path, "x = 1\nprint(sess.run(x)")
    result = cli("check", str(path))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {path}:cell 2:2:6: "), result.stderr


def test_a_colab_notebook_is_fixed_in_its_own_escaping(tmp_path):
    """Colab writes `<`, `>` and `&` as \\u003c, \\u003e, \\u0026 everywhere:
    the changed cell is written so too, and every other byte is kept (0.x
    refused to rewrite such a notebook)."""
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": ["import tensorflow as tf\n", "if 1 < 2 and 3 > 2 & 1:\n",
                         "    config = tf.ConfigProto(intra_op_parallelism_threads=1)\n",
                         "    sess = tf.Session(config=config)\n", "    print(sess.run(tf.constant(1)))"]},
             {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [
                 {"data": {"text/html": ["<b>a & b</b>"]}, "metadata": {}, "output_type": "display_data"}],
              "source": ["print('<unchanged>')"]}]
    document = {"cells": cells, "metadata": {"colab": {"name": "x.ipynb"}}, "nbformat": 4, "nbformat_minor": 0}
    text = json.dumps(document, indent=2) + "\n"
    colab = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    path = tmp_path / "colab.ipynb"
    path.write_text(colab)
    assert cli("fix", str(path)).exit_code == 0
    fixed = path.read_text()
    assert "<" not in fixed and ">" not in fixed and "&" not in fixed
    assert fixed == colab.replace("tf.ConfigProto", "tf.compat.v1.ConfigProto").replace(
        "tf.Session", "tf.compat.v1.Session")


def test_a_cell_whose_first_line_is_indented_is_read_as_ipython_dedents_it(tmp_path):
    """IPython takes the first line's indentation off every line that starts
    with it: such a cell is checked and fixed (no "unexpected indent"), its
    findings at their columns in the cell, and the fixed lines indented as
    the cell is (so IPython still runs it)."""
    cells = [
        {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
         "source": ["import tensorflow as tf\n"]},
        {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [],
         "source": ["\n", "  config = tf.ConfigProto(inter_op_parallelism_threads=1)\n",
                    "  config.gpu_options.allow_growth = True\n",
                    "  sess = tf.InteractiveSession(config=config)\n", "  x = 1"]},
        {"cell_type": "code", "execution_count": 3, "metadata": {}, "outputs": [],
         "source": [" with tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=2)) as s:\n",
                    "     s.run(tf.constant(1))"]},
    ]
    path = tmp_path / "indented.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1))
    result = cli("check", str(path))
    assert result.exit_code == 1 and f"{path}:cell 2:4:10: TFT001" in result.stdout
    assert f"{path}:cell 3:1:7: TFT002" in result.stdout
    assert cli("fix", str(path)).exit_code == 0
    fixed = json.loads(path.read_text())["cells"]
    assert "".join(fixed[1]["source"]) == (
        "\n"
        "  tf.config.threading.set_inter_op_parallelism_threads(1)\n"
        "  for gpu in tf.config.list_physical_devices('GPU'):\n"
        "      tf.config.experimental.set_memory_growth(gpu, True)\n"
        "  x = 1"
    )
    assert fixed[2]["source"][0] == " with tf.compat.v1.Session(config=tf.compat.v1.ConfigProto(" \
        "intra_op_parallelism_threads=2)) as s:\n"
    assert cli("check", str(path)).exit_code == 0


def test_tensorflow_version_1x_is_no_tf1_guard(tmp_path):
    """`%tensorflow_version 1.x` selected TF1 on Colab once; Colab has only
    TF2 now and the magic changes nothing, so the cells run on TF2: they are
    fixed like any others, the magic line kept."""
    cells = [{"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
              "source": ["%tensorflow_version 1.x\n", "import tensorflow as tf\n",
                         "sess = tf.InteractiveSession(config=tf.ConfigProto(intra_op_parallelism_threads=2))"]}]
    path = tmp_path / "colab.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1))
    assert cli("fix", str(path)).exit_code == 0
    assert json.loads(path.read_text())["cells"][0]["source"] == [
        "%tensorflow_version 1.x\n", "import tensorflow as tf\n",
        "tf.config.threading.set_intra_op_parallelism_threads(2)"]
