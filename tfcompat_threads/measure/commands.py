"""explain, probe, tune: the measuring tools' commands."""

from __future__ import annotations

import os
import sys

import click


def _emit(data: dict, as_json: bool, text) -> None:
    if as_json:
        import json

        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(text(data), nl=False)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="JSON instead of text.")
def explain(as_json: bool) -> None:
    """What the two thread knobs are set to here, where each value comes from,
    and the variables around them. Does not start TensorFlow."""
    from . import explain as tool

    _emit(tool.explain(), as_json, tool.format_explain)


@click.command()
@click.option("--intra", type=click.IntRange(min=0), default=0, show_default=True, help="intra_op_parallelism_threads (0 = TensorFlow picks).")
@click.option("--inter", type=click.IntRange(min=0), default=0, show_default=True, help="inter_op_parallelism_threads (0 = TensorFlow picks).")
@click.option("--json", "as_json", is_flag=True, help="JSON instead of text.")
def probe(intra: int, inter: int, as_json: bool) -> None:
    """Start TensorFlow in a fresh process with these values (through the shim),
    run an op, and count the thread pools it really made."""
    from . import ToolError, probe as tool

    try:
        data = tool.probe(intra, inter)
    except ToolError as error:
        raise click.ClickException(str(error)) from None
    _emit(data, as_json, tool.format_probe)


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


@click.command(context_settings={"ignore_unknown_options": True})
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
    from ..shim import configure as runtime
    from . import ToolError, tune as tools

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
    except ToolError as error:
        raise click.ClickException(str(error)) from None
    except FileNotFoundError as error:
        raise click.ClickException(f"cannot run {command[0]!r}: {error.strerror}") from None
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    _emit(data, as_json, tools.format_tune)




@click.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--json", "as_json", is_flag=True, help="JSON instead of text.")
@click.option("--strict", is_flag=True, help="Exit 1 when a thread setting was ignored (and the command exited 0).")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the report to this file instead of standard error.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def run(as_json: bool, strict: bool, output: str | None, command) -> None:
    """Run your unchanged COMMAND (after --) with a recorder loaded into its
    Python processes, and report which thread settings took effect: what the
    program asked (ConfigProto to a session, set_session, enable_eager_execution,
    RunConfig, tf.config calls, the environment), the pools TensorFlow made,
    counted from the process's threads, and a verdict per setting (applied,
    ignored, raised, overridden, not reached, not counted). COMMAND's output and
    exit code pass through; the report goes to standard error or --output."""
    from . import ToolError, run as tool

    if output is not None:
        folder = os.path.dirname(os.path.abspath(output))
        if not os.path.isdir(folder):
            raise click.UsageError(f"--output {output!r}: no folder {folder!r}")
    try:
        status, report = tool.run(list(command))
    except ToolError as error:
        raise click.UsageError(str(error)) from None
    try:
        tool.write_report(report, as_json, output)
    except OSError as error:
        raise click.UsageError(f"cannot write the report to {output!r}: {error.strerror}") from None
    sys.exit(tool.exit_code(status, report, strict))
