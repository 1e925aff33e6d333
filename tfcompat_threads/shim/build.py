"""Which runtime the installed TensorFlow's oneDNN kernels run on, from the
libraries its framework library loads (its ELF DT_NEEDED entries), without
importing TensorFlow: never from the distribution's name.

Seen on intel-tensorflow 2.14: libtensorflow_framework.so.2 needs
libiomp5.so, and oneDNN reports `cpu,runtime:OpenMP` (ONEDNN_VERBOSE=1);
its matmuls and convolutions run on an OpenMP pool that OMP_NUM_THREADS sizes
(default: the CPUs), whatever the intra-op setting, and libiomp5 reads the
variable when that pool starts, at the first such op. tensorflow-cpu 2.15
and 2.21 need no OpenMP library (`cpu,runtime:threadpool`: oneDNN runs on
the intra-op pool).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import struct

OPENMP_LIBRARY = re.compile(r"lib(?:iomp5|gomp|omp)\.so(?:\.[0-9]+)*")
FRAMEWORK = ("libtensorflow_framework.so.2", "libtensorflow_framework.so.1", "libtensorflow_framework.so")
_DT_NULL, _DT_NEEDED, _DT_STRTAB, _DT_STRSZ = 0, 1, 5, 10


def needed(path: str) -> list[str]:
    """The DT_NEEDED libraries of a 64-bit ELF file ([] when it is none)."""
    with open(path, "rb") as handle:
        head = handle.read(64)
        if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2:
            return []
        order = "<" if head[5] == 1 else ">"
        (phoff,) = struct.unpack_from(order + "Q", head, 32)
        phentsize, phnum = struct.unpack_from(order + "HH", head, 54)
        handle.seek(phoff)
        table = handle.read(phentsize * phnum)
        loads, dynamic = [], None
        for index in range(min(phnum, len(table) // max(phentsize, 1))):
            kind, _, offset, vaddr, _, filesz, _, _ = struct.unpack_from(order + "IIQQQQQQ", table, index * phentsize)
            if kind == 1:  # PT_LOAD
                loads.append((vaddr, offset, filesz))
            elif kind == 2:  # PT_DYNAMIC
                dynamic = (offset, filesz)
        if dynamic is None:
            return []
        handle.seek(dynamic[0])
        data = handle.read(min(dynamic[1], 1 << 20))
        entries = []
        for at in range(0, len(data) - 15, 16):
            tag, value = struct.unpack_from(order + "qQ", data, at)
            if tag == _DT_NULL:
                break
            entries.append((tag, value))
        found = dict((tag, value) for tag, value in entries if tag in (_DT_STRTAB, _DT_STRSZ))
        if _DT_STRTAB not in found:
            return []
        start = next((offset + found[_DT_STRTAB] - vaddr for vaddr, offset, size in loads
                      if vaddr <= found[_DT_STRTAB] < vaddr + size), None)
        if start is None:
            return []
        handle.seek(start)
        strings = handle.read(min(found.get(_DT_STRSZ, 1 << 16), 1 << 22))
    names = []
    for tag, value in entries:
        if tag == _DT_NEEDED and value < len(strings):
            end = strings.find(b"\0", value)
            names.append(strings[value:end if end >= 0 else None].decode("utf-8", "replace"))
    return names


@functools.lru_cache(maxsize=None)
def openmp_runtime() -> str | None:
    """The OpenMP library the installed TensorFlow's framework library loads
    (e.g. 'libiomp5.so': an OpenMP build, as Intel's), or None (the official
    threadpool builds, or no TensorFlow)."""
    try:
        spec = importlib.util.find_spec("tensorflow")
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        for name in FRAMEWORK:
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                try:
                    libraries = needed(path)
                except (OSError, struct.error):
                    return None
                return next((lib for lib in libraries if OPENMP_LIBRARY.fullmatch(lib)), None)
    return None


def openmp_pool_env() -> int | None:
    """OMP_NUM_THREADS as an OpenMP runtime takes it (its first number), or None."""
    raw = os.environ.get("OMP_NUM_THREADS", "").strip().split(",")[0].strip()
    try:
        value = int(raw)
    except ValueError:
        return None
    return value if value > 0 else None
