"""check, diff, fix and rule: the linter's commands. They parse options,
read standard input or walk paths, and print; the work is the runner's."""

from __future__ import annotations

import os
import sys
import time
from typing import NamedTuple

import click

from .formats import FORMATS
from .runner import Mode


def _codes(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(code.strip() for value in values for code in value.split(",") if code.strip())


def _codemod_options(function):
    options = [
        click.argument("paths", nargs=-1, type=click.Path()),
        click.option("--target", type=click.Choice(["native", "shim"]),
                     help="Fix to native TF2 calls or to the tfcompat_threads shim [default: native, or the "
                     "settings']."),
        click.option("--tf-version", metavar="X.Y",
                     help="The oldest TensorFlow the fixed code must run on: only names it has are written "
                     "[default: the settings', else the lowest the project's requirements allow, else 2.1]."),
        click.option("--show-settings", is_flag=True,
                     help="Print the settings this run would use (and where tf-version came from); check nothing."),
        click.option("--unsafe-fixes/--no-unsafe-fixes", default=None,
                     help="Count fixes marked unsafe as fixable (fix: apply them too)."),
        click.option("--select", multiple=True, help="Only these rules: codes, prefixes or names, comma-separated."),
        click.option("--extend-select", multiple=True,
                     help="These rules too (TFT011 is off by default): codes, prefixes or names."),
        click.option("--ignore", multiple=True, help="Not these rules: codes, prefixes or names, comma-separated."),
        click.option("--output-format", type=click.Choice(FORMATS), default="text", show_default=True),
        click.option("--statistics", is_flag=True,
                     help="Print the number of findings per rule instead of the list of findings (text and "
                     "concise; other formats print both)."),
        click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
                     help="Processes for parsing [default: CPU count]."),
        click.option("--quiet", "-q", is_flag=True, help="No summary, no list of changed files, no progress bar."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain (errors still exit 2)."),
        click.option("--stdin-filename", default=None,
                     help="Read standard input (as `-` does) and name it this in messages and settings."),
        click.option("--force-exclude", is_flag=True, help="Apply excludes to paths named on the command line too."),
        click.option("--no-cache", is_flag=True,
                     help="Neither use nor keep what earlier runs found (see TFCOMPAT_THREADS_CACHE_DIR)."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


@click.command(short_help="Report findings; change nothing.")
@_codemod_options
@click.option("--add-noqa", is_flag=True,
              help="Add a `# noqa: CODE` comment at every finding (merged into a noqa comment already there).")
def check(add_noqa: bool, **options) -> None:
    """Report findings; change nothing. [*] marks what `fix` applies.
    With --add-noqa: turn every finding off where it is (then burn the list down)."""
    _interruptible(Mode.ADD_NOQA if add_noqa else Mode.CHECK, options)


@click.command(short_help="Print the diff `fix` would apply.")
@_codemod_options
def diff(**options) -> None:
    """Print the unified diff that `fix` would apply; change nothing."""
    _interruptible(Mode.DIFF, options)


@click.command(short_help="Apply the fixes in place.")
@_codemod_options
@click.option("--show-fixes", is_flag=True, help="List the findings fixed in each file.")
def fix(**options) -> None:
    """Apply the fixes in place (`fix -`: write the result to standard output)."""
    _interruptible(Mode.FIX, options)


@click.command(short_help="Print a rule's documentation.")
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="Every rule.")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rule(code: str | None, show_all: bool, output_format: str) -> None:
    """A rule's documentation: what it does, why it matters, an example,
    what to use instead, and how safe its fix is. CODE: a code (TFT001), an
    old code, or a name (config-only-session)."""
    if sys.version_info < (3, 10):  # the rules' checks need 3.10; their documentation is read from their source
        from .rule_docs import rules_namespace

        names = rules_namespace()
        RULES, UnknownCode, expand = names["RULES"], names["UnknownCode"], names["expand"]
    else:
        from ..codemod.rules import RULES, UnknownCode, expand

    if show_all == bool(code):
        raise click.UsageError("give a rule code or name, or --all")
    if show_all:
        chosen = list(RULES.values())
    else:
        try:
            codes = expand(code)
        except UnknownCode as error:
            raise click.UsageError(str(error)) from None
        chosen = [RULES[c] for c in sorted(codes)]
    if output_format == "json":
        import json

        click.echo(json.dumps([_rule_dict(r, RULES) for r in chosen], indent=2))
        return
    click.echo("\n\n".join(_rule_text(r) for r in chosen))


def _rule_dict(rule, rules) -> dict:
    from .formats import rule_url

    return {"code": rule.code, "name": rule.name, "severity": rule.severity, "default": rule.default,
            "summary": rule.summary,
            "what_it_does": rule.what, "why": rule.why, "example": rule.example,
            "use_instead": rule.use_instead, "fix_safety": rule.fix_safety, "url": rule_url(rule.code, rules)}


def _rule_text(rule) -> str:
    return (
        f"{rule.code} {rule.name} ({rule.severity}{'' if rule.default else ', off by default'})\n\n"
        f"What it does\n  {rule.what}\n\nWhy is this bad?\n  {rule.why}\n\n"
        f"Example\n{_indent(rule.example)}\nUse instead\n{_indent(rule.use_instead)}\n"
        f"Fix safety\n  {rule.fix_safety}"
    )


def _indent(code: str) -> str:
    return "".join(f"    {line}\n" if line else "\n" for line in code.rstrip("\n").split("\n"))


def _settings(paths, stdin_filename, target, tf_version, unsafe_fixes, select, extend_select, ignore):
    from .settings import SettingsError, check_codes, checked_tf_version, load, with_declared_tf_version

    first = stdin_filename or (paths[0] if paths[0] != "-" else ".")
    changes = {}
    try:
        settings = load(first)
        check_codes(_codes(select), "--select")
        check_codes(_codes(extend_select), "--extend-select")
        check_codes(_codes(ignore), "--ignore")
        if tf_version is not None:
            changes.update(tf_version=checked_tf_version(tf_version, "--tf-version"),
                           tf_version_source="--tf-version")
        else:
            settings = with_declared_tf_version(settings, first)
    except SettingsError as error:
        from ..terminal import visible

        raise click.UsageError(visible(str(error))) from None  # it names files and quotes their text
    if target:
        changes["target"] = target
    if unsafe_fixes is not None:
        changes["unsafe_fixes"] = unsafe_fixes
    if select:
        changes["select"] = _codes(select)
    if extend_select:
        changes["extend_select"] = settings.extend_select + _codes(extend_select)
    if ignore:
        changes["ignore"] = settings.ignore + _codes(ignore)
    return settings.replace(**changes)


def _interruptible(mode: Mode, options: dict) -> None:
    """Run, and exit with the run's code; on Ctrl-C, exit 130 (what a shell
    reports for SIGINT, never 1, "findings"), saying what `fix` had already
    rewritten (each file wholly: files.py holds the signal during a write)."""
    rewritten: list[str] = []
    try:
        code = _run(mode, Invocation(**options), rewritten)
    except KeyboardInterrupt:
        if mode is Mode.FIX:
            count = f"{len(rewritten)} file{'s' if len(rewritten) != 1 else ''}"
            said = f"{count} already rewritten, the others left as they were"
        else:
            said = "nothing was changed"
        click.echo(f"interrupted (Ctrl-C): {said}", err=True)
        sys.exit(130)
    sys.exit(code)


class Invocation(NamedTuple):
    """What a check, diff or fix was asked for on its command line: one
    value that every step of the run reads."""

    paths: tuple[str, ...]
    target: str | None
    tf_version: str | None
    show_settings: bool
    unsafe_fixes: bool | None
    select: tuple[str, ...]
    extend_select: tuple[str, ...]
    ignore: tuple[str, ...]
    output_format: str
    statistics: bool
    jobs: int | None
    quiet: bool
    exit_zero: bool
    stdin_filename: str | None
    force_exclude: bool
    no_cache: bool
    show_fixes: bool = False

    @property
    def from_stdin(self) -> bool:
        return self.paths == ("-",) or (self.stdin_filename is not None and not self.paths)

    def settings(self):
        return _settings(self.paths or (".",), self.stdin_filename, self.target, self.tf_version,
                         self.unsafe_fixes, self.select, self.extend_select, self.ignore)


def _run(mode: Mode, asked: Invocation, rewritten=None) -> int:
    from . import runner
    from .report import Report

    started = time.perf_counter()
    _refuse_usage(mode, asked)
    settings = asked.settings()
    if asked.show_settings:
        from .settings import describe, file_keys

        given = {name for name in ("target", "tf_version", "unsafe_fixes", "select", "extend_select", "ignore")
                 if getattr(asked, name) not in (None, ())}
        click.echo(describe(settings, file_keys(settings.source), given), nl=False)
        return 0
    report = Report(mode, settings.unsafe_fixes, unsafe_flag=bool(asked.unsafe_fixes))
    # JSON carries each fix's edits: a check that prints it makes the fixed text (as diff does), writes nothing
    work = Mode.DIFF if mode is Mode.CHECK and asked.output_format == "json" else mode
    if asked.from_stdin:
        from .files import FileError, read_stdin

        name = asked.stdin_filename or "-"
        try:
            data = read_stdin()
        except FileError as error:
            results = [runner.FileResult(name, error=str(error))]
        else:
            results = [runner.process_source(data, name, settings, work)]
    else:
        results = _results(mode, work, asked, settings, report)
    entries, written, fixes = _apply(mode, asked, results, report, rewritten)
    return _show(mode, asked, report, entries, written, fixes, time.perf_counter() - started)


def _refuse_usage(mode: Mode, asked: Invocation) -> None:
    """What the options cannot mean together: a usage error (exit 2)."""
    paths = asked.paths
    if "-" in paths and len(paths) > 1:
        raise click.UsageError("`-` (standard input) cannot be mixed with other paths")
    if asked.stdin_filename is not None and paths and paths != ("-",):
        raise click.UsageError("--stdin-filename names standard input: give no paths (or `-`) with it")
    if mode is Mode.DIFF and asked.output_format != "text":  # ruff's --diff prints the diff alone, too
        raise click.UsageError(f"diff prints a unified diff, never {asked.output_format}: for the findings and "
                               f"their fixes as {asked.output_format}, run "
                               f"`check --output-format {asked.output_format}`")
    if asked.from_stdin and mode is Mode.ADD_NOQA:
        raise click.UsageError("--add-noqa writes files: it cannot read standard input")


def _results(mode: Mode, work: Mode, asked: Invocation, settings, report):
    """Each file's result, as the runner makes them (fix: all of them first)."""
    from . import runner
    from .files import discover

    files, missing = discover(list(asked.paths or (".",)), settings.excludes, asked.force_exclude)
    for message in missing:
        report.failed(message)
    results = runner.run(files, settings, work, asked.jobs, cache=not asked.no_cache, trees=asked.paths or (".",))
    if sys.stderr.isatty() and not asked.quiet and len(files) > 100:
        results = _with_progress(results, len(files))
    if mode is Mode.FIX:
        # every file is analysed before any is written: a flow followed into another module reads it as
        # the run found it, whatever order the files are done in (and Ctrl-C meanwhile writes nothing)
        results = list(results)
    return results


def _apply(mode: Mode, asked: Invocation, results, report, rewritten):
    """Report each result; diff prints its diff, fix writes it. (entries,
    written, fixes): the findings by path, the results fix wrote by real
    path (places in them moved), and the findings fixed in each file."""
    from . import formats
    from .files import FileError, write_atomic

    code_to_stdout = mode is Mode.FIX and asked.from_stdin  # `fix -`: standard output is the file
    entries = []
    written: dict = {}
    fixes: list[tuple[str, list]] = []
    diff_style = formats.Style.for_stream(sys.stdout)
    for result in results:
        report.done(result)
        entries += [(result.path, finding) for finding in result.findings]
        if code_to_stdout:
            sys.stdout.buffer.write(result.fixed_source if result.error is None else result.source)
        if not result.changed or mode is Mode.CHECK:
            continue
        if mode is Mode.DIFF:
            report.changed_file(result.path, 0)
            click.echo(formats.coloured_diff(_unified_diff(result), diff_style), nl=False,
                       color=diff_style.enabled or None)
        elif code_to_stdout:
            report.changed_file(result.path, result.fixed)
        else:
            try:
                write_atomic(result.path, result.fixed_source, result.source)
            except KeyboardInterrupt:  # held during the write, raised after it: the file may be new already
                if rewritten is not None and _holds(result.path, result.fixed_source):
                    rewritten.append(result.path)
                raise
            except FileError as error:  # nothing was fixed: its findings stand, as check shows them
                report.failed(str(error))
                kept = [(p, f) for p, f in entries if p != result.path]
                unfixed = [(result.path, f) for f in result.found]
                for _, finding in unfixed:
                    finding.fixed = False
                entries = kept + unfixed
                report.findings = [f for _, f in entries]
                report.with_findings += bool(unfixed) - bool(result.findings)
                continue
            report.changed_file(result.path, result.fixed)
            if rewritten is not None:
                rewritten.append(result.path)
            fixes.append((result.path, [f for f in result.found if f.fixed]))
            written[os.path.realpath(result.path)] = result
    return entries, written, fixes


def _show(mode: Mode, asked: Invocation, report, entries, written: dict, fixes, seconds: float) -> int:
    """Print the findings, the statistics, what was fixed, the errors and the
    summary, each to the stream it goes to; the exit code."""
    from ..terminal import visible
    from . import formats
    from .report import outside_line

    code_to_stdout = mode is Mode.FIX and asked.from_stdin
    data_to_stdout = code_to_stdout or mode is Mode.DIFF  # then findings and the summary go to stderr
    if entries:
        _show_places(entries, written)
    style = formats.Style.for_stream(sys.stderr if data_to_stdout else sys.stdout)
    rendered = formats.render(asked.output_format, entries, show_fixable=mode is not Mode.FIX, style=style)
    human = asked.output_format in ("text", "concise")
    listing = not (mode is Mode.DIFF and human) and not (asked.statistics and human)
    if rendered and listing:  # --statistics: the table instead of the listing (as ruff)
        # click strips colour off a stream that is no terminal: FORCE_COLOR keeps it
        click.echo(rendered, nl=False, err=data_to_stdout, color=style.enabled or None)
    info = data_to_stdout or not human
    if asked.statistics:
        click.echo(_statistics(entries, mode), nl=False, err=info)
    if mode is Mode.FIX and not asked.quiet and not code_to_stdout:
        for path in report.changed:
            click.echo(f"fixed {visible(path)}", err=info)
    if asked.show_fixes and fixes:
        click.echo(_fixes_list(fixes), nl=False, err=info)
    if not asked.quiet:  # what fix leaves to tf_upgrade_v2, one line a file
        for path, names in report.outside:
            click.echo(outside_line(visible(path), names), err=info)
    for error in report.errors:
        click.echo(f"error: {visible(error)}", err=True)
    if not asked.quiet:
        click.echo(report.summary(seconds), err=info)
    return report.exit_code(asked.exit_zero)


def _show_places(entries, written: dict) -> None:
    """Places in other files that findings name, as the user sees them now:
    relative to the current directory, at the lines the files have after
    this run's fixes."""
    from ..codemod.findings import shown_places
    from .edits import file_text, line_mover

    movers: dict = {}

    def moved(path: str, line: int) -> int:
        result = written.get(os.path.realpath(path))
        if result is None:
            return line
        if path not in movers:
            movers[path] = line_mover(file_text(result.source, result.path), file_text(result.fixed_source,
                                                                                       result.path))
        return movers[path](line)

    for _, finding in entries:
        finding.message = shown_places(finding.message, finding.places, moved)
        finding.help = shown_places(finding.help, finding.places, moved)


def _holds(path: str, data: bytes) -> bool:
    from .files import FileError, read_bytes  # the one bounded reader: a FIFO swapped in is not opened

    try:
        return read_bytes(path) == data
    except FileError:
        return False


def _statistics(entries, mode: Mode) -> str:
    from collections import Counter

    from ..codemod.rules import RULES

    counts = Counter(f.code for _, f in entries)
    fixable = Counter(f.code for _, f in entries if f.fixed and mode is not Mode.FIX)
    lines = [f"{counts[code]:>5}  {code}  {'[*]' if fixable[code] else '   '}  {RULES[code].name}"
             for code in sorted(counts, key=lambda c: (-counts[c], c))]
    return "\n".join(lines) + ("\n" if lines else "")


def _fixes_list(fixes: list[tuple[str, list]]) -> str:
    """What --show-fixes prints, as ruff does: per changed file, how many
    findings of each rule were fixed."""
    from collections import Counter

    from ..codemod.rules import RULES
    from ..terminal import visible

    total = sum(len(found) for _, found in fixes)
    lines = [f"Fixed {total} finding{'s' if total != 1 else ''}:"]
    for path, found in fixes:
        lines.append(f"- {visible(path)}:")
        counts = Counter(f.code for f in found)
        lines += [f"    {counts[code]} \u00d7 {code} ({RULES[code].name})" for code in sorted(counts)]
    return "\n".join(lines) + "\n"


def _with_progress(results, total):
    with click.progressbar(results, length=total, label="tfcompat-threads", file=sys.stderr) as bar:
        yield from bar


def _unified_diff(result) -> str:
    """A unified diff of the file; for a notebook, one per changed code cell,
    headed `path:cell N`, of the cell's Python."""
    import difflib
    import os

    from ..terminal import c_quoted

    path = os.path.normpath(result.path)
    if result.cells:
        pieces = [(f"{path}:cell {number}", old + "\n", new + "\n") for number, old, new in result.cells]
    else:
        pieces = [(path, result.text(result.source), result.text(result.fixed_source))]
    out = []
    for name, old, new in pieces:
        name = c_quoted(name)
        lines = difflib.unified_diff(_lines(old), _lines(new), name, name)
        out += [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines]
    return "".join(out)


def _lines(text: str) -> list[str]:
    """The lines of `text` as `patch` and `git apply` count them: ended by
    \n only (a \r stays in its line; a form feed, U+2028, NEL or \x1c, which
    `str.splitlines` takes for line ends, are characters of a line)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]
