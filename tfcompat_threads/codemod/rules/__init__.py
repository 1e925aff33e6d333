"""The rules: one module each, registered here.

A rule is a `Rule` subclass with its code, a name that names the pattern
("allow config-only-session" reads right), its documentation (what it does,
why it matters, an example, what to use instead, fix safety), examples that
are tests (`valid`: no finding; `invalid`: a finding, and the fixed code) and
`check(context)`, which yields findings with their fixes attached. Adding a
rule = adding one module and one line to `_MODULES`.

Codes are stable; a code or name that changed keeps working in noqa
comments, `--select`/`--ignore` and settings through `REDIRECTS`.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import import_module
from typing import TYPE_CHECKING, NamedTuple

from ..findings import ERROR, WARNING

if TYPE_CHECKING:
    from ..context import Context
    from ..findings import Finding

__all__ = ["DEFAULT", "ERROR", "WARNING", "Example", "REDIRECTS", "RULES", "SEVERITIES", "Rule", "UnknownCode",
           "expand"]


class Example(NamedTuple):
    """Code a rule reports (`source`) with the targets it reports it for, and
    what `fix` makes of it for each target (None: not checked; equal to
    `source`: no fix)."""

    source: str
    native: str | None = None
    shim: str | None = None
    targets: tuple[str, ...] = ("native", "shim")


class Rule:
    code: str = ""
    name: str = ""
    severity: str = WARNING
    summary: str = ""
    """One line: the pattern, as the rules table shows it."""
    what: str = ""
    why: str = ""
    example: str = ""
    use_instead: str = ""
    fix_safety: str = ""
    fixable: str = "no"
    default: bool = True
    """Reported without a `select`; False: only when selected (by code, name, prefix or ALL)."""
    """Whether findings carry a fix: "no", "yes (safe)", "yes (safe or unsafe)"."""
    valid: tuple[str, ...] = ()
    invalid: tuple[Example, ...] = ()

    def check(self, context: Context) -> Iterator[Finding]:
        raise NotImplementedError

    @property
    def anchor(self) -> str:
        """The README anchor of the rule's documentation."""
        return f"{self.code.lower()}-{self.name}"


_MODULES = (
    "config_only_session",
    "tf1_only_name",
    "keras_set_session",
    "enable_eager_with_config",
    "unfollowed_config",
    "unmappable_field",
    "estimator_session_config",
    "thread_setting_after_first_op",
    "device_count_as_thread_limit",
    "openmp_thread_variables",
    "config_passed_outside",
)


def _load() -> dict[str, Rule]:
    rules = {}
    for name in _MODULES:
        module = import_module(f".{name}", __name__)
        rule = module.RULE
        rules[rule.code] = rule
    return rules


RULES: dict[str, Rule] = _load()
DEFAULT: frozenset[str] = frozenset(code for code, rule in RULES.items() if rule.default)
SEVERITIES: dict[str, str] = {code: rule.severity for code, rule in RULES.items()}
"""The codes reported when nothing is selected."""
BY_NAME: dict[str, Rule] = {rule.name: rule for rule in RULES.values()}

# Codes of 0.1 -> codes now (0.1's TFT1xx meant "no fix": a code no longer
# says whether a fix exists; ConfigProto(**kwargs) is unfollowed-config, or
# config-only-session without a native fix). Old codes keep working wherever
# codes are read.
REDIRECTS: dict[str, str] = {
    "TFT101": "TFT006",
    "TFT102": "TFT005",
    "TFT103": "TFT004",
    "TFT104": "TFT008",
    "TFT105": "TFT003",
    "TFT106": "TFT005",
    "TFT107": "TFT007",
}


class UnknownCode(ValueError):
    """A code, prefix or name that matches no rule; the message suggests one."""


def expand(selector: str) -> frozenset[str]:
    """The codes a selector means: "ALL", a code, a code prefix (`TFT00`), a
    rule name, or an old code / old prefix (through REDIRECTS)."""
    text = selector.strip()
    if text.upper() == "ALL":
        return frozenset(RULES)
    if text in BY_NAME:
        return frozenset({BY_NAME[text].code})
    upper = text.upper()
    found = {code for code in RULES if code.startswith(upper)}
    found |= {new for old, new in REDIRECTS.items() if old.startswith(upper)}
    if not found or not upper.startswith("TFT"):
        raise UnknownCode(_unknown(text))
    return frozenset(found)


def _unknown(text: str) -> str:
    import difflib

    candidates = [*RULES, *BY_NAME, *REDIRECTS]
    close = difflib.get_close_matches(text.upper() if text.upper().startswith("TFT") else text, candidates, n=1)
    hint = f"; did you mean {close[0]}?" if close else "; `tfcompat-threads rule --all` lists the rules"
    return f"unknown rule code or name {text!r}{hint}"
