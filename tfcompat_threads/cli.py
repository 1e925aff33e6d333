"""The command line: `tfcompat-threads check|diff|fix [PATH]...` (the linter,
`lint/commands.py`) and `explain|probe|tune|run` (the measuring tools,
`measure/commands.py`). It parses arguments and prints. It never imports
TensorFlow, and libcst only when a file holds a trigger token."""

from __future__ import annotations

import sys

import click

from . import __version__
from .lint.commands import check, diff, fix, rule
from .measure.commands import explain, probe, run, tune


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tfcompat-threads")
def main() -> None:
    """Keep TF1 session-config thread settings working on TensorFlow 2.

    Exit codes: 0 nothing to report / nothing left / no diff; 1 findings or a
    diff; 2 usage error, missing path, unreadable or unparsable file, or an
    internal error (the other files are still done)."""



# The linter (libcst, and the analysis written for it) needs Python 3.10; the
# runtime, the measuring tools and `rule` run on every Python TensorFlow ran on, 3.7 up.
LINTER_PYTHON = (3, 10)


def _needs_linter_python(name: str):
    def refuse(**_options) -> None:
        needed = ".".join(map(str, LINTER_PYTHON))
        click.echo(
            f"Error: tfcompat-threads {name} needs Python {needed} or newer (this is {sys.version.split()[0]}); "
            f"run it from a newer Python (pre-commit: add `language_version: python{needed}` or newer to the "
            "hook's entry); rule, run, explain, probe, tune and the shim work here",
            err=True,
        )
        sys.exit(2)

    return refuse


for _command in (check, diff, fix, rule, explain, probe, tune, run):
    if _command in (check, diff, fix) and sys.version_info < LINTER_PYTHON:
        _command.callback = _needs_linter_python(_command.name)
    main.add_command(_command)


if __name__ == "__main__":
    main()
