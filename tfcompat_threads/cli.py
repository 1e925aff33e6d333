"""The command line: `tfcompat-threads check|diff|fix [PATH]...` and the tools
`explain|probe|tune`. It parses arguments and prints; the work is in engine.py
(files) and tools.py (thread pools). It never imports TensorFlow, and libcst
only when a file holds a trigger token."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from . import __version__

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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tfcompat-threads")
def main() -> None:
    """Keep TF1 session-config thread settings working on TensorFlow 2.

    Exit codes: 0 nothing to report / nothing left / no diff; 1 findings or a
    diff; 2 usage error, missing path, unreadable or unparsable file, or an
    internal error (the other files are still done)."""


@main.command()
@_codemod_options
def check(**options) -> None:
    """Report findings; change nothing."""
    sys.exit(_run("check", **options))


@main.command()
@_codemod_options
def diff(**options) -> None:
    """Print the unified diff that fix would apply; change nothing."""
    sys.exit(_run("diff", **options))


@main.command()
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
    from . import engine, output
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
                write_atomic(Path(result.path), result.fixed_source)
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


def _emit(data: dict, as_json: bool, text) -> None:
    if as_json:
        import json

        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(text(data), nl=False)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="JSON instead of text.")
def explain(as_json: bool) -> None:
    """What the two thread knobs are set to here, where each value comes from,
    and the variables around them. Does not start TensorFlow."""
    from . import tools

    data = tools.explain()
    _emit(data, as_json, tools.format_explain)


@main.command()
@click.option("--intra", type=click.IntRange(min=0), default=0, show_default=True, help="intra_op_parallelism_threads (0 = TensorFlow picks).")
@click.option("--inter", type=click.IntRange(min=0), default=0, show_default=True, help="inter_op_parallelism_threads (0 = TensorFlow picks).")
@click.option("--json", "as_json", is_flag=True, help="JSON instead of text.")
def probe(intra: int, inter: int, as_json: bool) -> None:
    """Start TensorFlow in a fresh process with these values (through the shim),
    run an op, and count the thread pools it really made."""
    from . import tools

    try:
        data = tools.probe(intra, inter)
    except tools.ToolError as error:
        raise click.ClickException(str(error)) from None
    _emit(data, as_json, tools.format_probe)


def _int_list(value: str | None) -> list[int] | None:
    if value is None:
        return None
    try:
        values = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise click.BadParameter(f"{value!r}: give numbers separated by commas, e.g. 1,2,4") from None
    if not values or any(v < 0 for v in values):
        raise click.BadParameter(f"{value!r}: give numbers >= 0 (0 = TensorFlow picks)")
    return values


@main.command(context_settings={"ignore_unknown_options": True})
@click.option("--intra", default=None, help="intra-op sizes to try, e.g. 1,2,4 [default: from the CPU count].")
@click.option("--inter", default=None, help="inter-op sizes to try [default: from the CPU count].")
@click.option("--repeat", type=click.IntRange(min=1), default=3, show_default=True, help="Timed runs per point.")
@click.option("--warmup", type=click.IntRange(min=0), default=1, show_default=True, help="Untimed runs first.")
@click.option("--json", "as_json", is_flag=True, help="JSON instead of text.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def tune(intra, inter, repeat, warmup, as_json, command) -> None:
    """Time your unchanged COMMAND (after --) once per pool size and repeat, each
    run a fresh process sized from outside (TF_NUM_INTRAOP_THREADS /
    TF_NUM_INTEROP_THREADS), and say which point is fastest and whether it
    beats TensorFlow's default by more than the noise. A program that sets the
    pools itself (ConfigProto, tf.config.threading) overrides these variables."""
    from . import runtime, tools

    cpus = runtime.schedulable_cpus()
    intra_values = _int_list(intra) or tools.default_grid(cpus)
    inter_values = _int_list(inter) or tools.default_grid(cpus)
    progress = None
    bar = None
    if sys.stderr.isatty():
        bar = click.progressbar(length=(1 + len(intra_values) * len(inter_values)) * (repeat + warmup),
                                label="tune", file=sys.stderr)
        bar.__enter__()
        progress = lambda done, total: bar.update(done - bar.pos)  # noqa: E731
    try:
        data = tools.tune(list(command), intra_values, inter_values, repeat, warmup, progress=progress)
    except tools.ToolError as error:
        raise click.ClickException(str(error)) from None
    except FileNotFoundError as error:
        raise click.ClickException(f"cannot run {command[0]!r}: {error.strerror}") from None
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    _emit(data, as_json, tools.format_tune)


def _with_progress(results, total):
    with click.progressbar(results, length=total, label="tfcompat-threads", file=sys.stderr) as bar:
        yield from bar


def _unified_diff(result) -> str:
    import difflib

    old = result.text(result.source).splitlines(keepends=True)
    new = result.text(result.fixed_source).splitlines(keepends=True)
    lines = difflib.unified_diff(old, new, f"a/{result.path}", f"b/{result.path}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


if __name__ == "__main__":
    main()
