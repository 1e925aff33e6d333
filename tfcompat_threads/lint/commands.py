"""check, diff, fix: the linter's commands over files and standard input."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _codes(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(code.strip().upper() for value in values for code in value.split(",") if code.strip())


def _codemod_options(function):
    options = [
        click.argument("paths", nargs=-1, type=click.Path()),
        click.option("--target", type=click.Choice(["native", "shim"]), help="Rewrite to TF2 calls or to the shim [default: native, or the config's]."),
        click.option("--unsafe-fixes/--no-unsafe-fixes", default=None, help="Also apply fixes marked unsafe."),
        click.option("--select", multiple=True, help="Only these codes (or prefixes), comma-separated."),
        click.option("--ignore", multiple=True, help="Not these codes (or prefixes), comma-separated."),
        click.option("--output-format", type=click.Choice(["text", "json", "github", "sarif"]), default="text", show_default=True),
        click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Processes for parsing [default: CPU count]."),
        click.option("--quiet", "-q", is_flag=True, help="No summary and no progress bar."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain (errors still exit 2)."),
        click.option("--stdin-filename", default=None, help="The name of the file read from `-`."),
        click.option("--force-exclude", is_flag=True, help="Apply excludes to paths named on the command line too."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


@click.command()
@_codemod_options
def check(**options) -> None:
    """Report findings; change nothing."""
    sys.exit(_run("check", **options))


@click.command()
@_codemod_options
def diff(**options) -> None:
    """Print the unified diff that fix would apply; change nothing."""
    sys.exit(_run("diff", **options))


@click.command()
@_codemod_options
def fix(**options) -> None:
    """Rewrite the files in place (`fix -` writes the result to standard output)."""
    sys.exit(_run("fix", **options))


def _settings(paths, stdin_filename, target, unsafe_fixes, select, ignore):
    from .settings import SettingsError, load

    first = Path(stdin_filename) if paths == ("-",) and stdin_filename else Path(paths[0] if paths[0] != "-" else ".")
    try:
        settings = load(first)
    except SettingsError as error:
        raise click.UsageError(str(error)) from None
    changes = {}
    if target:
        changes["target"] = target
    if unsafe_fixes is not None:
        changes["unsafe_fixes"] = unsafe_fixes
    if select:
        changes["select"] = _codes(select)
    if ignore:
        changes["ignore"] = settings.ignore + _codes(ignore)
    return settings.replace(**changes)


def _run(mode, paths, target, unsafe_fixes, select, ignore, output_format, jobs, quiet, exit_zero,
         stdin_filename, force_exclude) -> int:
    from . import formats as output, runner as engine
    from .files import FileError, discover, write_atomic

    started = time.perf_counter()
    paths = paths or (".",)
    settings = _settings(paths, stdin_filename, target, unsafe_fixes, select, ignore)
    errors: list[str] = []
    code_to_stdout = mode == "fix" and paths == ("-",)  # `fix -`: standard output is the file
    data_to_stdout = code_to_stdout or mode == "diff"  # then findings and the summary go to stderr
    if "-" in paths:
        if len(paths) > 1:
            raise click.UsageError("`-` (standard input) cannot be mixed with other paths")
        name = stdin_filename or "-"
        results = [engine.process_source(sys.stdin.buffer.read(), name, settings, rewrite=mode != "check")]
        files = [name]
    else:
        files, missing = discover(list(paths), settings.excludes, force_exclude)
        errors += missing
        results = engine.run(files, settings, jobs, rewrite=mode != "check")
        if sys.stderr.isatty() and not quiet and len(files) > 100:
            results = _with_progress(results, len(files))
    diagnostics = []
    changed = fixed = with_findings = 0
    for result in results:
        if result.error:
            errors.append(result.error)
            continue
        shown = [d for d in result.diagnostics if not (mode == "fix" and d.fixed)]
        with_findings += bool(shown)
        diagnostics += shown
        if code_to_stdout:
            sys.stdout.buffer.write(result.fixed_source)
        if not result.changed:
            continue
        changed += 1
        if mode == "diff":
            click.echo(_unified_diff(result), nl=False)
        elif code_to_stdout:
            fixed += 1
        elif mode == "fix":
            try:
                write_atomic(Path(result.path), result.fixed_source, result.source)
                fixed += 1
            except FileError as error:
                errors.append(str(error))
    rendered = output.render(output_format, diagnostics, show_fixable=mode != "fix")
    if rendered and not (mode == "diff" and output_format == "text"):
        click.echo(rendered, nl=False, err=data_to_stdout)
    for error in errors:
        click.echo(f"error: {error}", err=True)
    if not quiet:
        seconds = time.perf_counter() - started
        fixable = sum(d.fixed for d in diagnostics) if mode != "fix" else 0
        summary = (
            f"{len(files)} files seen, {with_findings} with findings ({len(diagnostics)} findings"
            + (f", {fixable} fixable with `fix`" if fixable else "")
            + f"), {fixed if mode == 'fix' else changed} {'fixed' if mode == 'fix' else 'would change'}, "
            f"{len(errors)} errors, {seconds:.2f} s"
        )
        click.echo(summary, err=data_to_stdout or output_format != "text")
    if errors:
        return EXIT_ERROR
    if exit_zero:
        return EXIT_CLEAN
    if mode == "diff":
        return EXIT_FINDINGS if changed else EXIT_CLEAN
    return EXIT_FINDINGS if diagnostics else EXIT_CLEAN


def _with_progress(results, total):
    with click.progressbar(results, length=total, label="tfcompat-threads", file=sys.stderr) as bar:
        yield from bar


def _unified_diff(result) -> str:
    import difflib

    old = result.text(result.source).splitlines(keepends=True)
    new = result.text(result.fixed_source).splitlines(keepends=True)
    lines = difflib.unified_diff(old, new, f"a/{result.path}", f"b/{result.path}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


