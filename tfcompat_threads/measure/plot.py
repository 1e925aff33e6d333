"""`tune --plot FILE`: a picture of the time per grid point with its spread
(every timed run as a dot, the median as a bar, min to max as a line), from
the data `tune` returns. matplotlib is an optional extra (`plot`)."""

from __future__ import annotations

from . import ToolError

MISSING = "--plot needs matplotlib, which is not installed for {python}: pip install 'tfcompat-threads[plot]'"


def require() -> None:
    """Raise ToolError (one line) when matplotlib cannot be imported: said before any run."""
    import sys

    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ToolError(MISSING.format(python=sys.executable)) from None


def _label(size: int) -> str:
    return "dflt" if size == 0 else str(size)


def points(data: dict) -> list[str]:
    """The grid points in the picture's order: `intra/inter` (`intra/inter/omp` when tune swept
    OMP_NUM_THREADS too), dflt for TensorFlow's default (and OMP_NUM_THREADS unset)."""
    return [f"{_label(r['intra_op'])}/{_label(r['inter_op'])}" + (f"/{_label(r['omp'])}" if "omp" in r else "")
            for r in data["results"]]


def plot_tune(data: dict, path: str) -> None:
    """Write the picture of `tune`'s data to `path` (PNG, or what its suffix says)."""
    import matplotlib

    matplotlib.use("Agg")  # a file, never a window
    import matplotlib.pyplot as plt

    labels = points(data)
    results = data["results"]
    figure, axes = plt.subplots(figsize=(max(6.0, 0.7 * len(results) + 2), 4.5), dpi=100)
    best = (data["best"]["intra_op"], data["best"]["inter_op"], data["best"].get("omp"))
    top = max((max(r["runs"]) for r in results if r["runs"]), default=1.0)
    for x, r in enumerate(results):
        if r["failed"] is not None or not r["runs"]:
            axes.annotate("failed", (x, 0), ha="center", va="bottom", color="tab:red", rotation=90)
            continue
        colour = "tab:green" if (r["intra_op"], r["inter_op"], r.get("omp")) == best else "tab:blue"
        axes.vlines(x, r["min_s"], r["max_s"], color=colour, linewidth=2)
        axes.hlines(r["median_s"], x - 0.25, x + 0.25, color=colour, linewidth=3)
        axes.scatter([x] * len(r["runs"]), r["runs"], color=colour, s=14, alpha=0.6, zorder=3)
    axes.set_xticks(range(len(results)))
    axes.set_xticklabels(labels, rotation=45 if len(results) > 8 else 0)
    axes.set_xlim(-0.6, len(results) - 0.4)
    axes.set_ylim(0, top * 1.15)
    axes.set_xlabel("intra-op / inter-op threads" + (" / OMP_NUM_THREADS" if "openmp" in data else "")
                    + " (dflt: TensorFlow's default" + (", OMP_NUM_THREADS unset" if "openmp" in data else "") + ")")
    axes.set_ylabel("seconds per run")
    axes.set_title(f"tune: {data['repeat']} timed run{'s' if data['repeat'] != 1 else ''} a point, "
                   f"{data['cpus']} schedulable CPUs\nmedian (bar), min to max (line), each run (dot); "
                   "the best point in green", fontsize=9)
    axes.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    metadata = {"Description": "tune: " + ", ".join(labels)} if path.lower().endswith(".png") else None
    try:
        figure.savefig(path, metadata=metadata)
    except OSError as error:
        raise ToolError(f"cannot write {path}: {error.strerror or error}") from None
    finally:
        plt.close(figure)
