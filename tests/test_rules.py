"""The rules as units: each module's documentation and examples (the examples
are tests, as Fixit's VALID/INVALID), the registry and its redirects, and
check / fix agreement: what `check` marks fixable is exactly what `fix`
fixes, over every fixture and rule example, alone and combined."""

from __future__ import annotations

import itertools
import re
from collections import Counter

import pytest

from tests.fixture_outputs import folders
from tfcompat_threads.codemod import engine
from tfcompat_threads.codemod.rules import BY_NAME, REDIRECTS, RULES, UnknownCode, expand

RULE_LIST = list(RULES.values())


@pytest.mark.parametrize("rule", RULE_LIST, ids=lambda r: r.code)
def test_rule_is_documented(rule):
    assert re.fullmatch(r"TFT\d{3}", rule.code)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", rule.name), "a name names the pattern, kebab-case"
    assert rule.severity in ("error", "warning")
    for text in (rule.summary, rule.what, rule.why, rule.example, rule.use_instead, rule.fix_safety):
        assert text.strip()


def _in_repository(tmp_path, source: str) -> str:
    """An example as the one module of a repository (a git work tree): what
    the repository has, and does not, is part of some rules' examples."""
    (tmp_path / ".git").mkdir(exist_ok=True)
    path = tmp_path / "example.py"
    path.write_text(source)
    return str(path)


@pytest.mark.parametrize("target", engine.TARGETS)
@pytest.mark.parametrize("rule", RULE_LIST, ids=lambda r: r.code)
def test_valid_examples_have_no_finding_of_the_rule(rule, target, tmp_path):
    for source in rule.valid:
        found = engine.run(source.encode(), target, _in_repository(tmp_path, source), fix=False,
                           wants=lambda code: True).findings
        assert rule.code not in {f.code for f in found}, source


@pytest.mark.parametrize("target", engine.TARGETS)
@pytest.mark.parametrize("rule", RULE_LIST, ids=lambda r: r.code)
def test_invalid_examples_are_found_and_fixed_as_documented(rule, target, tmp_path):
    for example in rule.invalid:
        if target not in example.targets:
            continue
        outcome = engine.run(example.source.encode(), target, _in_repository(tmp_path, example.source),
                             wants=lambda code: True)
        assert rule.code in {f.code for f in outcome.findings}, example.source
        expected = getattr(example, target)
        if expected is not None:
            assert outcome.source.decode() == expected


def test_registry():
    assert len({r.name for r in RULE_LIST}) == len(RULE_LIST)
    assert set(BY_NAME) == {r.name for r in RULE_LIST}
    assert not set(REDIRECTS) & set(RULES), "an old code never names a new rule"
    assert set(REDIRECTS.values()) <= set(RULES)
    assert expand("TFT104") == {"TFT008"} and expand("config-only-session") == {"TFT001"}
    assert expand("tft001") == {"TFT001"}
    with pytest.raises(UnknownCode, match="did you mean TFT001"):
        expand("TFT0001")
    with pytest.raises(UnknownCode):
        expand("XYZ")


def _samples():
    inputs = [(f.name, (f / "input.py").read_bytes()) for f in folders()]
    inputs += [(f"{r.code}-invalid-{i}", e.source.encode()) for r in RULE_LIST for i, e in enumerate(r.invalid)]
    combined = [(f"{a[0]}+{b[0]}", a[1] + b"\n" + b[1]) for a, b in itertools.combinations(inputs[::3], 2)]
    return inputs + combined


SAMPLES = _samples()


@pytest.mark.parametrize("unsafe", [False, True])
@pytest.mark.parametrize("target", engine.TARGETS)
def test_check_and_fix_agree(target, unsafe):
    """Every finding check marks fixable is gone after fix, fix fixes as many
    as check marks, and the findings left are those check did not mark
    fixable (one kind may go with the code it was about: a variable rule
    whose file no longer uses TensorFlow at all)."""
    problems = []
    for name, source in SAMPLES:
        try:
            checked = engine.run(source, target, unsafe_fixes=unsafe, fix=False).findings
        except engine.SourceError:
            continue  # two inputs joined may not parse (a `from __future__` in the middle)
        fixed = engine.run(source, target, unsafe_fixes=unsafe)
        left = engine.run(fixed.source, target, unsafe_fixes=unsafe, fix=False).findings
        expected = Counter(f.code for f in checked if not f.fixed)
        found = Counter(f.code for f in left)
        if found - expected or any(f.fixed for f in left) or (expected - found).keys() - {"TFT010"}:
            problems.append(f"{name}: check left {sorted(expected.elements())}, fix left "
                            f"{sorted(f.code + ('*' if f.fixed else '') for f in left)}")
        if sum(f.fixed for f in checked) != sum(f.fixed for f in fixed.findings):
            problems.append(f"{name}: check calls {sum(f.fixed for f in checked)} fixable, fix fixed "
                            f"{sum(f.fixed for f in fixed.findings)}")
    assert problems == []
