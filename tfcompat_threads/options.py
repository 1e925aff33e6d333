"""The one table of ConfigProto options and what each becomes on TensorFlow 2.

This module is the TF-free model of the options. The runtime shim
(`shim/configure.py`) applies a row by its `action`, the codemod writes a row's
`native` template, and the README's option table is printed from it
(`scripts/update-readme`). Adding a field means adding one row.

`NAMES` says which releases have each TensorFlow name the codemod writes, and
how older releases spell it: `spelled()` writes a template for the oldest
release the code must run on (`--tf-version`), or says which name it lacks.

Field paths are dotted: `gpu_options.allow_growth`, `device_count.GPU`.
"""

from __future__ import annotations

import enum
import re
from typing import NamedTuple


class Applicability(str, enum.Enum):
    """How far a rewrite of the field can be trusted (ruff's fix applicability)."""

    SAFE = "safe"  # same behaviour on TF2
    UNSAFE = "unsafe"  # close, but a documented difference remains
    MANUAL = "none"  # no TF2 call: reported, never guessed

    def __str__(self) -> str:
        return self.value


class Timing(str, enum.Enum):
    BEFORE_INIT = "before the runtime starts"
    ANY_TIME = "any time"
    GRAPH_ONLY = "graph mode only"

    def __str__(self) -> str:
        return self.value


class Form(NamedTuple):
    """A shape of a field's value that has its own TF2 code, safer than the
    general one. `shape`: "== <literal>" or a named shape the codemod knows
    ("digit string", "str(x)", "ascending digit list"). An empty template
    means there is nothing to do for that value."""

    shape: str
    template: str
    applicability: Applicability = Applicability.SAFE


class Action(str, enum.Enum):
    """What the runtime shim does with a row in TF2 eager mode: one handler
    per action in `shim/configure.py` (tests/test_shim_table.py ties them)."""

    INTRA_OP_THREADS = "intra_op_threads"
    INTER_OP_THREADS = "inter_op_threads"
    SOFT_PLACEMENT = "soft_placement"
    LOG_PLACEMENT = "log_placement"
    GPU_MEMORY_GROWTH = "gpu_memory_growth"
    GPU_VISIBLE_DEVICE_LIST = "gpu_visible_device_list"
    DEVICE_COUNT_GPU = "device_count_gpu"
    DEVICE_COUNT_CPU = "device_count_cpu"
    MANUAL = "manual"  # no TF2 call: reported
    GRAPH_ONLY = "graph_only"  # honoured by graph-mode sessions only: reported in eager mode

    def __str__(self) -> str:
        return self.value


class Option(NamedTuple):  # a NamedTuple: cheaper to define than a dataclass
    field: str
    """Dotted ConfigProto path."""
    action: Action
    """What the runtime shim does with it in TF2 eager mode."""
    native: str | None
    """TF2 statement(s) for the codemod; `{tf}` is the TensorFlow module name,
    `{value}` the field's value expression, `{gpu}` and `{gpus}` free names.
    None: no TF2 equivalent. Every statement must run wherever the TF1
    config ran, a host without GPUs included (TF1 ignored GPU options there)."""
    since: str
    """First TF release that has the TF2 call as `native` spells it (older
    spellings: `NAMES`; tests/test_tf_version.py ties the two)."""
    applicability: Applicability
    timing: Timing
    notes: str
    env: str | None = None
    """Environment variable that sets the same thing before the process starts."""
    forms: tuple[Form, ...] = ()
    """Value shapes with their own code, tried in order before `native`;
    `{index}` / `{indexes}` are the GPU index(es) the shape names."""
    caveat: str = ""
    """For an unsafe `native`: what may differ, in a few words (shown in the help)."""

    @property
    def mappable(self) -> bool:
        return self.native is not None


_A = Applicability
_T = Timing
# Only GPUs that exist are named: on a host without GPUs this does nothing, as TF1 did.
_VISIBLE_GPUS = (
    "{{gpus}} = {{tf}}.config.list_physical_devices('GPU')\n"
    "if {{gpus}}:\n"
    "    {{tf}}.config.set_visible_devices({devices}, 'GPU')"
)

OPTIONS: tuple[Option, ...] = (
    Option(
        "intra_op_parallelism_threads",
        Action.INTRA_OP_THREADS,
        "{tf}.config.threading.set_intra_op_parallelism_threads({value})",
        "1.14",
        _A.SAFE,
        _T.BEFORE_INIT,
        "Threads inside one op (matmul, reduction). Process-wide; 0 = number of schedulable CPUs.",
        env="TF_NUM_INTRAOP_THREADS",
    ),
    Option(
        "inter_op_parallelism_threads",
        Action.INTER_OP_THREADS,
        "{tf}.config.threading.set_inter_op_parallelism_threads({value})",
        "1.14",
        _A.SAFE,
        _T.BEFORE_INIT,
        "Threads running independent ops side by side. Process-wide; 0 = number of schedulable CPUs.",
        env="TF_NUM_INTEROP_THREADS",
    ),
    Option(
        "allow_soft_placement",
        Action.SOFT_PLACEMENT,
        "{tf}.config.set_soft_device_placement({value})",
        "1.14",
        _A.SAFE,
        _T.ANY_TIME,
        "Fall back to another device when the asked one cannot run the op.",
    ),
    Option(
        "log_device_placement",
        Action.LOG_PLACEMENT,
        "{tf}.debugging.set_log_device_placement({value})",
        "1.14",
        _A.SAFE,
        _T.BEFORE_INIT,
        "Log the device of every op. Accepted later too, but then nothing is logged (TF 2.15-2.21).",
    ),
    Option(
        "gpu_options.allow_growth",
        Action.GPU_MEMORY_GROWTH,
        "for {gpu} in {tf}.config.list_physical_devices('GPU'):\n"
        "    {tf}.config.experimental.set_memory_growth({gpu}, {value})",
        "2.1",
        _A.SAFE,
        _T.BEFORE_INIT,
        "Per GPU; or TF_FORCE_GPU_ALLOW_GROWTH=true before the process starts.",
    ),
    Option(
        "gpu_options.visible_device_list",
        Action.GPU_VISIBLE_DEVICE_LIST,
        _VISIBLE_GPUS.format(devices="[{gpus}[int(i)] for i in str({value}).split(',') if i.strip()] or {gpus}"),
        "2.1",
        _A.UNSAFE,
        _T.BEFORE_INIT,
        "'' keeps every GPU. The listed GPUs stay visible, but TF2 keeps their physical order, not the "
        "listed one: safe for one index or an ascending list. Without GPUs, nothing to do (as TF1).",
        forms=(
            Form("== ''", ""),
            Form("digit string", _VISIBLE_GPUS.format(devices="{gpus}[{index}]")),
            Form("str(x)", _VISIBLE_GPUS.format(devices="{gpus}[{index}]")),
            Form("ascending digit list", _VISIBLE_GPUS.format(devices="[{indexes}]")),
        ),
        caveat="it may name several GPUs, whose listed order TF2 does not keep",
    ),
    Option(
        "device_count.GPU",
        Action.DEVICE_COUNT_GPU,
        "{tf}.config.set_visible_devices({tf}.config.list_physical_devices('GPU')[:{value}], 'GPU')",
        "2.1",
        _A.SAFE,
        _T.BEFORE_INIT,
        "GPU: 0 hides every GPU; n keeps the first n.",
        forms=(Form("== 0", "{tf}.config.set_visible_devices([], 'GPU')"),),
    ),
    Option(
        "device_count.CPU",
        Action.DEVICE_COUNT_CPU,
        "{tf}.config.set_logical_device_configuration(\n"
        "    {tf}.config.list_physical_devices('CPU')[0],\n"
        "    [{tf}.config.LogicalDeviceConfiguration()] * {value})",
        "2.1",
        _A.UNSAFE,
        _T.BEFORE_INIT,
        "Number of CPU devices, NOT a thread limit: use the two thread options for that. "
        "1 is the default: nothing to do.",
        forms=(Form("== 1", ""),),
        caveat="it makes CPU devices (it limits no thread)",
    ),
    Option(
        "gpu_options.per_process_gpu_memory_fraction",
        Action.MANUAL,
        None,
        "2.1",
        _A.MANUAL,
        _T.BEFORE_INIT,
        "No fraction API: tf.config.set_logical_device_configuration(gpu, "
        "[tf.config.LogicalDeviceConfiguration(memory_limit=MB)]) needs the GPU's size in MB. 1.0 (the whole "
        "GPU) is no limit: nothing to do.",
        forms=(Form("== 1.0", ""), Form("== 1", "")),
    ),
    *(
        Option(
            field,
            Action.GRAPH_ONLY,
            None,
            "-",
            _A.MANUAL,
            _T.GRAPH_ONLY,
            "No TF2 eager equivalent; a tf.compat.v1 session in graph mode still honours it.",
        )
        for field in (
            "use_per_session_threads",
            "session_inter_op_thread_pool",
            "placement_period",
            "device_filters",
            "operation_timeout_in_ms",
            "graph_options",
            "rpc_options",
            "cluster_def",
            "isolate_session_state",
            "share_cluster_devices_in_session",
            "experimental",
            "pluggable_device_options",
            "gpu_options.allocator_type",
            "gpu_options.deferred_deletion_bytes",
            "gpu_options.polling_active_delay_usecs",
            "gpu_options.polling_inactive_delay_msecs",
            "gpu_options.force_gpu_compatible",
            "gpu_options.experimental",
        )
    ),
)

BY_FIELD: dict[str, Option] = {option.field: option for option in OPTIONS}


class Name(NamedTuple):
    """A TensorFlow name the codemod writes, by release."""

    since: str
    """First release with the name as the key spells it."""
    before: tuple[tuple[str, str], ...] = ()
    """Spellings of older releases: (first release with it, name), oldest first."""


# Every name below `tf.` that a template or a rename writes (checked on each
# release of the test matrix: tests/tfnames.py). 1.14-2.0 have the device
# calls under tf.config.experimental only; memory growth is experimental on
# every release; tf.compat.v1 first exists in 1.13.
NAMES: dict[str, Name] = {
    "config.threading.set_intra_op_parallelism_threads": Name("1.14"),
    "config.threading.set_inter_op_parallelism_threads": Name("1.14"),
    "config.set_soft_device_placement": Name("1.14"),
    "debugging.set_log_device_placement": Name("1.14"),
    "config.experimental.set_memory_growth": Name("1.14"),
    "config.list_physical_devices": Name("2.1", (("1.14", "config.experimental.list_physical_devices"),)),
    "config.set_visible_devices": Name("2.1", (("1.14", "config.experimental.set_visible_devices"),)),
    "config.set_logical_device_configuration": Name(
        "2.1", (("1.14", "config.experimental.set_virtual_device_configuration"),)),
    "config.LogicalDeviceConfiguration": Name("2.1", (("1.14", "config.experimental.VirtualDeviceConfiguration"),)),
    "compat.v1": Name("1.13"),
    # tf-upgrade-v2's table renames tf.train.Server to it (codemod/symbols.py TF1_RENAMES)
    "distribute.Server": Name("1.14", (("1.13", "compat.v1.train.Server"),)),
}

# The TensorFlow releases a tf-version may name: 1.0-1.15 and 2.0 up to the newest this table was
# checked against (the newest row of the test matrix). Older releases spell what NAMES says.
RELEASES: tuple[tuple[int, int], ...] = (*((1, minor) for minor in range(16)),
                                         *((2, minor) for minor in range(22)))


def known_releases() -> str:
    """The releases a tf-version may name, as a message says them: `1.0-1.15, 2.0-2.21`."""
    majors = sorted({major for major, _ in RELEASES})
    return ", ".join(f"{major}.{min(m for a, m in RELEASES if a == major)}-{major}."
                     f"{max(m for a, m in RELEASES if a == major)}" for major in majors)


_TEMPLATE_NAME = re.compile(r"\{tf\}\.([A-Za-z_][\w.]*)")


class NoName(Exception):
    """The release has no spelling of a name the code needs."""

    def __init__(self, name: str, since: str, release: str) -> None:
        self.name = name
        self.since = since
        self.release = release
        super().__init__(f"tf.{name} first exists in TensorFlow {since}, and the code must run on {release} "
                         "(tf-version)")


def release(text: str) -> tuple[int, int]:
    """(major, minor) of "X.Y" or "X.Y.Z"; ValueError for anything else."""
    match = re.fullmatch(r"\s*(\d+)\.(\d+)(?:\.\d+)?\s*", text)
    if match is None:
        raise ValueError(f"{text!r} is not a TensorFlow release: give MAJOR.MINOR, e.g. 1.15")
    return int(match.group(1)), int(match.group(2))


def spelling(name: str, tf_version: str | None) -> str:
    """`name` (a key of NAMES) as `tf_version` spells it (None: the newest
    spelling). Raises NoName when that release has none."""
    entry = NAMES[name]
    if tf_version is None:
        return name
    wanted = release(tf_version)
    for since, spelled_as in ((entry.since, name), *reversed(entry.before)):
        if release(since) <= wanted:
            return spelled_as
    raise NoName(name, (entry.before[0][0] if entry.before else entry.since), tf_version)


def spelled(template: str, tf_version: str | None) -> str:
    """The template with every `{tf}.name` as `tf_version` spells it; NoName
    when that release lacks one."""
    return _TEMPLATE_NAME.sub(lambda m: "{tf}." + spelling(m.group(1), tf_version), template)


def written_names(template: str) -> list[str]:
    """The NAMES keys a template writes, in order."""
    return _TEMPLATE_NAME.findall(template)


THREAD_FIELDS = ("intra_op_parallelism_threads", "inter_op_parallelism_threads")

# The most threads a pool may be given (the shim, `probe` and `tune` refuse
# more). Measured on tensorflow-cpu 2.21 (2 CPUs, first op after
# tf.config.threading.set_*): 1,024 threads 0.4 s, 4,096 1.6-1.9 s, 16,384
# 20-22 s; 100,000 still not started after 60 s (it hangs) and 2**31-1 dies
# with SIGSEGV; a count above what the machine may start (pid_max, a pids
# cgroup) aborts the process (SIGABRT).
MAX_THREADS = 4096

# Fields whose value is a message or a map: a dotted path below them names a row.
NESTED_FIELDS = ("gpu_options", "device_count")


def lookup(field: str) -> Option | None:
    """The row for a dotted field path; a path below a graph-only message
    (`graph_options.optimizer_options...`) resolves to that message's row."""
    if field in BY_FIELD:
        return BY_FIELD[field]
    parts = field.split(".")
    for end in range(len(parts) - 1, 0, -1):
        option = BY_FIELD.get(".".join(parts[:end]))
        if option is not None and option.field not in NESTED_FIELDS:
            return option
    return None


def markdown_table() -> str:
    """The README's option table."""
    lines = [
        "| ConfigProto field | TF2 | since | fix | when | notes |",
        "|---|---|---|---|---|---|",
    ]
    for option in OPTIONS:
        if option.native is None:
            tf2 = "none (reported)"
        else:
            tf2 = _code(option.native)
            tf2 += "".join(
                f"<br>{form.shape.replace('==', 'v ==')}: " + (_code(form.template) if form.template else "nothing")
                + f" ({form.applicability.name.lower()})" for form in option.forms)
        notes = option.notes + (f" Env: `{option.env}`." if option.env else "")
        lines.append(
            f"| `{option.field}` | {tf2} | {_since(option)} | {option.applicability.name.lower()} "
            f"| {option.timing} | {notes} |"
        )
    return "\n".join(lines) + "\n"


def _since(option: Option) -> str:
    """The row's release, and the older spellings the codemod writes for older ones."""
    templates = [option.native or "", *(form.template for form in option.forms)]
    older: dict[str, str] = {}
    for name in dict.fromkeys(n for t in templates for n in written_names(t)):
        for since, spelled_as in NAMES[name].before:
            older.setdefault(since, "")
            older[since] += f"{', ' if older[since] else ''}`tf.{spelled_as}`"
    return option.since + "".join(f"<br>from {since}: {names}" for since, names in older.items())


def example(template: str) -> str:
    """A template with example names: what the code looks like."""
    return template.format(tf="tf", value="v", gpu="gpu", gpus="gpus", index="i", indexes="gpus[i], gpus[j]")


def _code(template: str) -> str:
    text = " ".join(example(template).split())
    return "`" + text.replace("|", "\\|") + "`"
