"""The generated parts of the documentation site (mkdocs.yml `hooks:`): a page
per rule from the rule module itself (its docs and its examples), the rules'
table, the option table from tfcompat_threads/options.py, and the changelog
from CHANGELOG.md. Nothing here is a copy: each build renders them anew."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mkdocs.structure.files import File  # noqa: E402

from tfcompat_threads.codemod.rules import REDIRECTS, RULES  # noqa: E402
from tfcompat_threads.lint.formats import rule_page  # noqa: E402
from tfcompat_threads.options import markdown_table  # noqa: E402


def rule_markdown(rule) -> str:
    """A rule's page: what `tfcompat-threads rule CODE` prints, and its examples that are tests."""
    out = [
        f"# {rule.code} {rule.name}\n",
        f"*{rule.severity}*{'' if rule.default else ', off by default (`--extend-select ' + rule.code + '`)'}; "
        f"fix: {rule.fixable}. `tfcompat-threads rule {rule.code}` prints this page.\n",
        f"## What it does\n\n{rule.what}\n",
        f"## Why is this bad?\n\n{rule.why}\n",
        f"## Example\n\n```python\n{rule.example.rstrip()}\n```\n",
        f"## Use instead\n\n```python\n{rule.use_instead.rstrip()}\n```\n",
        f"## Fix safety\n\n{rule.fix_safety}\n",
        f"## Suppressing it\n\n`# noqa: {rule.code}` on the line, or `ignore = [\"{rule.code}\"]` under `[tool.tfcompat-threads]` in pyproject.toml.\n",
    ]
    if rule.invalid:
        out.append("## What the tests check\n\nEach of these is reported, and `fix` makes of it what follows "
                   "(`tests/test_rules.py` runs them):\n")
        for example in rule.invalid:
            out.append(f"```python\n{example.source.rstrip()}\n```\n")
            for target in example.targets:
                fixed = getattr(example, target)
                if fixed is not None and fixed != example.source:
                    out.append(f"`fix --target {target}`:\n\n```python\n{fixed.rstrip()}\n```\n")
    return "\n".join(out)


def rules_table() -> str:
    lines = ["| code | name | severity | what it finds | fix |", "|---|---|---|---|---|"]
    lines += [f"| [`{r.code}`]({rule_page(r.code)}.md) | {r.name} | {r.severity} | {r.summary} | {r.fixable} |"
              for r in RULES.values()]
    old = ", ".join(f"`{old}` -> `{new}`" for old, new in REDIRECTS.items())
    return "\n".join(lines) + f"\n\nCodes of 0.1 still work in noqa comments and settings: {old}.\n"


def changelog() -> str:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return text


GENERATED = {"options-table": markdown_table, "rules-table": rules_table}


def on_config(config):
    """The Rules entry of the navigation lists every rule page."""
    for entry in config["nav"]:
        if isinstance(entry, dict) and "Rules" in entry:
            entry["Rules"] = ["rules/index.md"] + [{f"{r.code} {r.name}": f"rules/{rule_page(r.code)}.md"}
                                                    for r in RULES.values()]
    return config


def on_files(files, config):
    for rule in RULES.values():
        files.append(File.generated(config, f"rules/{rule_page(rule.code)}.md", content=rule_markdown(rule)))
    files.append(File.generated(config, "changelog.md", content=changelog()))
    return files


def on_page_markdown(markdown, page, config, files):
    for name, render in GENERATED.items():
        markdown = markdown.replace(f"<!-- {name} -->", render())
    return markdown
