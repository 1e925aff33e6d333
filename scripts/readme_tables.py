"""Tables of the README, generated from the code that they describe."""

from __future__ import annotations

from tfcompat_threads.codemod.findings import RULES
from tfcompat_threads.options import markdown_table


def rules_table() -> str:
    lines = ["| code | what it does | why it matters | fix |", "|---|---|---|---|"]
    lines += [f"| `{r.code}` {r.name} | {r.what} | {r.why} | {r.fix} |" for r in RULES.values()]
    return "\n".join(lines) + "\n"


TABLES = {"options-table": markdown_table, "rules-table": rules_table}
