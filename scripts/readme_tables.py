"""Tables and rule docs of the README, generated from the code they describe
(`scripts/update-readme` writes them; tests/test_options.py checks them)."""

from __future__ import annotations

from tfcompat_threads.codemod.rules import REDIRECTS, RULES
from tfcompat_threads.options import markdown_table


def rules_table() -> str:
    lines = ["| code | name | severity | what it finds | fix |", "|---|---|---|---|---|"]
    lines += [
        f"| [`{r.code}`](#{r.anchor}) | {r.name} | {r.severity} | {r.summary} | {r.fixable} |"
        for r in RULES.values()
    ]
    old = ", ".join(f"`{old}` -> `{new}`" for old, new in REDIRECTS.items())
    return "\n".join(lines) + f"\n\nCodes of 0.1 still work in noqa comments and settings: {old}.\n"


def rules_docs() -> str:
    out = []
    for rule in RULES.values():
        out.append(
            f"#### {rule.code} {rule.name}\n\n"
            f"*{rule.severity}*{'' if rule.default else ', off by default'}. **What it does**: {rule.what}\n\n**Why is this bad?** {rule.why}\n\n"
            f"**Example**\n\n```python\n{rule.example.rstrip()}\n```\n\n"
            f"**Use instead**\n\n```python\n{rule.use_instead.rstrip()}\n```\n\n"
            f"**Fix safety**: {rule.fix_safety}\n"
        )
    return "\n".join(out)


TABLES = {"options-table": markdown_table, "rules-table": rules_table, "rules-docs": rules_docs}
