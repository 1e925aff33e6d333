"""The hooks under the real pre-commit, installed as the README's pre-commit
section says: its YAML and its commands, verbatim, in a new git project, from a
clone of this repository.

The one substitution: `repo:` names that clone instead of the repository's
public address, which this machine cannot reach (and which the project does not
have yet). The clone holds what is committed here (HEAD), so uncommitted changes
to the hooks are not what runs.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
LEGACY = (ROOT / "fixtures" / "keyword_args" / "input.py").read_bytes()
LEGACY_FIXED = (ROOT / "fixtures" / "keyword_args" / "native.py").read_bytes()
HOOK_IDS = ["tfcompat-threads-check", "tfcompat-threads-fix"]


def readme_section() -> tuple[str, str]:
    """The YAML and the shell block of the README's `### pre-commit` section."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n### pre-commit\n", 1)[1].split("\n### ", 1)[0]
    (config,) = re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)
    (commands,) = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    return config, commands


def with_repo(config: str, location: Path) -> str:
    """`config` with its one `repo:` value replaced by `location`; nothing else changes."""
    lines = config.splitlines(keepends=True)
    repo_lines = [i for i, line in enumerate(lines) if re.match(r"\s*- repo: ", line)]
    assert len(repo_lines) == 1, "the snippet installs from one repository"
    i = repo_lines[0]
    lines[i] = lines[i][: lines[i].index("repo: ") + len("repo: ")] + f"{location}\n"
    return "".join(lines)


@pytest.fixture(scope="module")
def upstream(tmp_path_factory, worker_id):
    """A clone of this repository and a pre-commit cache, shared by the pytest-xdist
    workers of one run, so the hook environment is installed once."""
    base = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        base = base.parent  # the run's folder, shared by its workers
    with open(base / "precommit-upstream.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        clone = base / "upstream"
        if not clone.exists():
            subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, capture_output=True)
    head = git("rev-parse", "HEAD", cwd=clone).strip()
    return clone, head, base / "pre-commit-cache"


def git(*args, cwd, env=None) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def project(tmp_path: Path, cache: Path, config: str):
    """A new git project with `config` as its .pre-commit-config.yaml; returns it
    and the environment to run pre-commit and git commit in (this venv's
    `pre-commit` first on PATH, as after `pip install pre-commit`)."""
    repo = tmp_path / "project"
    repo.mkdir()
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(cache),
        "SKIP": "",
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@localhost",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@localhost",
        "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
    }
    git("init", "-q", cwd=repo, env=env)
    (repo / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    return repo, env


def commit(repo: Path, env, files: dict[str, bytes]) -> subprocess.CompletedProcess:
    for name, data in files.items():
        (repo / name).write_bytes(data)
    git("add", "-A", cwd=repo, env=env)
    return subprocess.run(["git", "commit", "-q", "-m", "change"], cwd=repo, env=env,
                          capture_output=True, text=True)


def test_readme_snippet_as_written_blocks_a_legacy_commit_and_passes_a_clean_one(tmp_path, upstream):
    clone, head, cache = upstream
    config, commands = readme_section()
    repo, env = project(tmp_path, cache, with_repo(config, clone))

    # The README's commands, as a user would paste them.
    steps = subprocess.run(["bash", "-euo", "pipefail", "-c", commands], cwd=repo, env=env,
                           capture_output=True, text=True)
    assert steps.returncode == 0, steps.stdout + steps.stderr
    assert f"updating HEAD -> {head}" in steps.stdout, steps.stdout
    pinned = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text())
    assert pinned["repos"][0]["rev"] == head, "autoupdate pins the newest commit"
    assert [h["id"] for h in pinned["repos"][0]["hooks"]] == ["tfcompat-threads-check"]
    assert (repo / ".git" / "hooks" / "pre-commit").exists(), "pre-commit install"

    blocked = commit(repo, env, {"train.py": LEGACY})
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, output
    assert re.search(r"tfcompat-threads check\.+Failed", output), output
    assert "train.py:5:8: TFT001" in output
    assert "mutable reference" not in output, "after autoupdate the rev is a commit"
    assert git("rev-list", "--all", cwd=repo, env=env) == "", "nothing was committed"

    passed = commit(repo, env, {"train.py": LEGACY_FIXED})
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert git("log", "--format=%s", cwd=repo, env=env).split() == ["change"]


def test_readme_fix_variant_rewrites_and_hooks_run_as_one_process(tmp_path, upstream):
    """The snippet's other choice (the fix line uncommented, the check line
    commented out), on eight legacy files at once: pre-commit runs the tool once
    for all of them (require_serial; without it, once per CPU when there are more
    than 4 files for each, each run with its own process pool), fails the commit
    because files changed, and the rewritten files then commit."""
    clone, head, cache = upstream
    config, commands = readme_section()
    check = "      - id: tfcompat-threads-check"
    fix = "      # - id: tfcompat-threads-fix"
    assert check in config and fix in config
    variant = config.replace(check, check.replace("- id", "# - id"))
    variant = variant.replace(fix, fix.replace("# - id", "- id"))
    repo, env = project(tmp_path, cache, with_repo(variant, clone))
    steps = subprocess.run(["bash", "-euo", "pipefail", "-c", commands], cwd=repo, env=env,
                           capture_output=True, text=True)
    assert steps.returncode == 0, steps.stdout + steps.stderr
    variant = (repo / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert f"rev: {head}" in variant

    names = [f"train_{i}.py" for i in range(8)]
    rewritten = commit(repo, env, {name: LEGACY for name in names})
    output = rewritten.stdout + rewritten.stderr
    assert rewritten.returncode != 0, output
    assert re.search(r"tfcompat-threads fix\.+Failed", output), output
    assert "files were modified by this hook" in output
    assert all((repo / name).read_bytes() == LEGACY_FIXED for name in names)
    assert commit(repo, env, {}).returncode == 0

    # How many times pre-commit started the tool: each run prints one JSON list.
    (repo / ".pre-commit-config.yaml").write_text(
        variant.replace("      - id: tfcompat-threads-fix",
                        "      - id: tfcompat-threads-check\n        args: [--output-format, json]"),
        encoding="utf-8")
    checked = commit(repo, env, {name: LEGACY for name in names})
    assert checked.returncode != 0
    runs, findings = json_lists(checked.stdout + checked.stderr)
    assert sorted({Path(f["filename"]).name for f in findings}) == names
    assert runs == 1, f"pre-commit started the tool {runs} times for {len(names)} files"


def json_lists(output: str) -> tuple[int, list]:
    """How many JSON lists `output` holds (each starting a line), and their items."""
    decoder, runs, items, at = json.JSONDecoder(), 0, [], 0
    while (at := output.find("[", at)) >= 0:
        try:
            if at > 0 and output[at - 1] != "\n":
                raise ValueError
            document, end = decoder.raw_decode(output, at)
        except ValueError:
            at += 1
            continue
        if isinstance(document, list):
            runs += 1
            items += document
        at = end
    return runs, items


def test_hooks_file():
    """Each hook: require_serial, types_or python and jupyter, and the lowest
    pre-commit that knows every key it uses (checked below against the releases
    themselves)."""
    from pre_commit.clientlib import load_manifest

    hooks = load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))  # pre-commit's own validation
    assert [h["id"] for h in hooks] == HOOK_IDS
    raw = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    for hook in raw:
        assert hook["require_serial"] is True
        assert hook["types_or"] == ["python", "jupyter"]
        assert hook["minimum_pre_commit_version"] == MINIMUM
        assert hook["language"] == "python"


# The newest pre-commit release before MINIMUM (from its changelog: types_or came
# in 2.9.0; require_serial in 1.13.0; a hook's minimum_pre_commit_version in 0.6.8).
MINIMUM, BEFORE = "2.9.0", "2.8.2"


def test_minimum_pre_commit_version_is_the_lowest_that_knows_every_key(tmp_path):
    """Install pre-commit MINIMUM and the release before it (no dependencies: only
    their hook schema is read) and ask each which hook keys it knows."""
    raw = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert {hook.get("minimum_pre_commit_version") for hook in raw} == {MINIMUM}
    used = set().union(*raw)
    known = {}
    for version in (MINIMUM, BEFORE):
        target = tmp_path / version
        pip = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
             "--target", str(target), f"pre-commit=={version}", "toml"],
            capture_output=True, text=True,
        )
        assert pip.returncode == 0, pip.stdout + pip.stderr
        keys = subprocess.run(
            [sys.executable, "-c",
             ("import sys; sys.path.insert(0, sys.argv[1]); import pre_commit.constants as C; "
              "from pre_commit.clientlib import MANIFEST_HOOK_DICT as m; "
              "print(C.VERSION, *sorted(i.key for i in m.items if hasattr(i, 'key')))"),
             str(target)],
            capture_output=True, text=True,
        )
        assert keys.returncode == 0, keys.stderr
        reported, *names = keys.stdout.split()
        assert reported == version
        known[version] = set(names)
    assert used <= known[MINIMUM], used - known[MINIMUM]
    assert used - known[BEFORE], f"pre-commit {BEFORE} already knows every key: lower the minimum"
