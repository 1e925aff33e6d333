"""explain, probe, tune: the measuring tools' commands."""

from __future__ import annotations

import os
import sys

import click

from ..options import MAX_THREADS


class Failure(click.ClickException):
    """A one-line `Error: ...` and exit code 2 (click's UsageError would add
    two lines of usage; a plain ClickException exits 1)."""

    exit_code = 2


class OneLine(click.Command):
    """A command whose usage errors (missing COMMAND, a bad --intra) are one
    line too, still with exit code 2."""

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as error:
            raise Failure(error.format_message()) from None

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.UsageError as error:
            raise Failure(error.format_message()) from None


def _emit(data: dict, as_json: bool, text) -> None:
    if as_json:
        import json

        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(text(data), nl=False)


@click.command(short_help="Show the pool sizes in force here and why.", cls=OneLine)
@click.option("--json", "as_json", is_flag=True, help="JSON instead of text.")
def explain(as_json: bool) -> None:
    """What the two thread knobs are set to here, where each value comes from,
    and the variables around them. Does not start TensorFlow."""
    from . import explain as tool

    data = tool.explain()
    if data["tensorflow"] is None:  # as probe: nothing to explain without it
        raise Failure(f"TensorFlow is not installed for {sys.executable}: pip install tensorflow-cpu")
    _emit(data, as_json, tool.format_explain)


def _say(quiet: bool, text: str) -> None:
    """Progress: plain lines on standard error, terminal or not, so a CI log
    shows where the time goes; standard output keeps only the result."""
    if not quiet:
        click.echo(text, err=True)


def _env_pairs(values: tuple[str, ...]) -> dict[str, str]:
    pairs = {}
    for value in values:
        name, equals, setting = value.partition("=")
        if not equals or not name or not name.replace("_", "").isalnum():
            raise click.BadParameter(f"{value!r}: give NAME=VALUE, e.g. OMP_NUM_THREADS=1", param_hint="--env")
        pairs[name] = setting
    return pairs


@click.command(short_help="Count the pools TensorFlow makes for given sizes.", cls=OneLine)
@click.option("--intra", type=click.IntRange(min=0, max=MAX_THREADS), default=0, show_default=True, help="intra_op_parallelism_threads (0 = TensorFlow's default: the schedulable CPUs).")
@click.option("--inter", type=click.IntRange(min=0, max=MAX_THREADS), default=0, show_default=True, help="inter_op_parallelism_threads (0 = TensorFlow's default: the schedulable CPUs).")
@click.option("--env", "env", multiple=True, metavar="NAME=VALUE", help="Set this variable in the probe process (repeatable), e.g. OMP_NUM_THREADS=1.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=300, show_default=True, help="Seconds before the probe process is killed.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on standard error.")
@click.option("--json", "as_json", is_flag=True, help="JSON instead of text.")
def probe(intra: int, inter: int, env: tuple[str, ...], timeout: float, quiet: bool, as_json: bool) -> None:
    """Start TensorFlow in a fresh process with these values (through the shim),
    run an op, and count the thread pools it really made."""
    import time

    from . import ToolError, probe as tool

    extra = _env_pairs(env)
    from ..versions import tf_importable

    if not tf_importable():  # said before any "starting TensorFlow" (the probe process runs this Python)
        raise Failure(f"TensorFlow is not installed for {sys.executable}: pip install tensorflow-cpu")
    _say(quiet, f"probe: starting TensorFlow in a fresh process (intra-op {intra or 'default'}, inter-op "
                f"{inter or 'default'}); this takes a few seconds, at most {timeout:g}")
    start = time.perf_counter()
    try:
        data = tool.probe(intra, inter, timeout=timeout, env=extra)
    except ToolError as error:
        raise Failure(str(error)) from None
    _say(quiet, f"probe: done in {time.perf_counter() - start:.1f} s")
    _emit(data, as_json, tool.format_probe)


def _int_list(value: str | None, option: str) -> list[int] | None:
    if value is None:
        return None
    try:
        values = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise click.BadParameter(f"{value!r}: give numbers separated by commas, e.g. 1,2,4", param_hint=option) from None
    if not values or any(v < 0 for v in values):
        raise click.BadParameter(f"{value!r}: give numbers >= 0 (0 = TensorFlow's default)", param_hint=option)
    if any(v > MAX_THREADS for v in values):
        raise click.BadParameter(f"{value!r}: at most {MAX_THREADS} threads (TensorFlow hangs or dies with many more)",
                                 param_hint=option)
    return values


@click.command(short_help="Time your command at several pool sizes.", cls=OneLine,
               context_settings={"ignore_unknown_options": True})
@click.option("--intra", default=None, help="intra-op sizes to try, e.g. 1,2,4 [default: from the CPU count].")
@click.option("--inter", default=None, help="inter-op sizes to try [default: from the CPU count].")
@click.option("--omp", default=None, help="OMP_NUM_THREADS values to try too, e.g. 1,2 (0 = unset: the CPUs); "
              "only on an OpenMP build (Intel's), where it sizes the pool oneDNN's matmuls and convolutions run on.")
@click.option("--repeat", type=click.IntRange(min=1), default=3, show_default=True, help="Timed runs per point (3 or more to judge the noise).")
@click.option("--warmup", type=click.IntRange(min=0), default=1, show_default=True, help="Untimed runs first.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=600, show_default=True, help="Seconds one run may take; then it is killed (its whole process group) and its point fails.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on standard error.")
@click.option("--json", "as_json", is_flag=True, help="JSON instead of text.")
@click.option("--plot", "plot_file", type=click.Path(dir_okay=False, writable=True), default=None, metavar="FILE",
              help="Also draw the time per grid point with its spread to FILE (PNG; needs the plot extra).")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def tune(intra, inter, omp, repeat, warmup, timeout, quiet, as_json, plot_file, command) -> None:
    """Time your unchanged COMMAND (after --) once per pool size and repeat, each
    run a fresh process sized from outside (TF_NUM_INTRAOP_THREADS /
    TF_NUM_INTEROP_THREADS), and say which point is fastest, whether it
    beats TensorFlow's default by more than the noise, and how to apply it.
    A program that sets the pools itself (ConfigProto, tf.config.threading)
    overrides these variables. Progress goes to standard error, one line per run."""
    from ..shim import configure as runtime
    from . import ToolError, tune as tools
    from .run import resolve

    try:
        if plot_file is not None:
            from . import plot

            plot.require()
        resolve(list(command))
    except ToolError as error:
        raise Failure(str(error)) from None
    cpus = runtime.schedulable_cpus()
    intra_values = _int_list(intra, "--intra") or tools.default_grid(cpus)
    inter_values = _int_list(inter, "--inter") or tools.default_grid(cpus)
    omp_values = _int_list(omp, "--omp")
    sweep = omp_values if omp_values is not None else [0]
    points = len([p for p in [(a, b, c) for a in intra_values for b in inter_values for c in sweep]
                  if p != (0, 0, 0)]) + 1
    _say(quiet, f"tune: {points} points x {warmup + repeat} runs of your command, each run at most {timeout:g} s")

    def progress(info: dict) -> None:
        kind = "warm-up run" if info["warmup"] else "run"
        outcome = f"failed ({info['failed']['how']})" if info["failed"] else f"{info['seconds']:.2f} s"
        left = info["elapsed"] / info["done"] * (info["total"] - info["done"])
        omp_point = f", omp {info['omp'] or 'dflt'}" if "omp" in info else ""
        _say(quiet, f"tune: point {info['point']} of {info['points']} (intra {info['intra_op'] or 'dflt'}, inter "
                    f"{info['inter_op'] or 'dflt'}{omp_point}), {kind} {info['run']} of {info['runs']}: {outcome}; "
                    f"{info['elapsed']:.1f} s elapsed, about {left:.0f} s left")

    try:
        data = tools.tune(list(command), intra_values, inter_values, repeat, warmup, timeout=timeout,
                          progress=progress, omp=omp_values)
    except ToolError as error:
        raise Failure(str(error)) from None
    if plot_file is not None and data["tensorflow_imported"] is not False:
        try:
            plot.plot_tune(data, plot_file)
        except ToolError as error:
            raise Failure(str(error)) from None
        _say(quiet, f"tune: drew {plot_file}")
    _emit(data, as_json, tools.format_tune)
    if data["tensorflow_imported"] is False:  # as `run`: the command's own exit code
        sys.exit(data["exit_code"])


@click.command(short_help="Run your command; report which settings took effect.", cls=OneLine,
               context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
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
            raise Failure(f"--output {output!r}: no folder {folder!r}")
    try:
        status, report = tool.run(list(command))
    except ToolError as error:
        raise Failure(str(error)) from None
    try:
        tool.write_report(report, as_json, output)
    except OSError as error:
        raise Failure(f"cannot write the report to {output!r}: {error.strerror}") from None
    sys.exit(tool.exit_code(status, report, strict))
