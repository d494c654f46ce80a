"""Refuse a run the machine cannot hold, before it starts.

The core estimates what a run of a scenario needs (``_core.validate(...)
["memory"]``, and ``_core.run`` hands it to ``before_run`` once it has parsed
the scenario): the process, nodes, links, routes, flows and what they send,
generators' connections, traces, captures, phases and results tables, each
part naming the field that drives it; within a factor of two of what runs
measure (docs/scenarios.md, "Memory"). A run, or a sweep running ``jobs`` of
them at once, whose estimate exceeds the memory available is refused with an
error naming the file, the fields that make it big, their values and what
would fit, instead of failing part-way on an allocation.
``TCPLAB_MEMORY_CHECK=0`` skips the check; ``TCPLAB_MEMORY_LIMIT=BYTES``
sets the memory to count on instead of what the machine reports (a share of a
machine others use too).
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from tcplab import _core

if TYPE_CHECKING:
    from tcplab._core import MemoryEstimate as Estimate
    from tcplab._core import MemoryPart as Part

__all__ = ["MemoryCheckError", "available_bytes", "check", "guard", "limit_malloc_arenas"]

ENV = "TCPLAB_MEMORY_CHECK"
LIMIT_ENV = "TCPLAB_MEMORY_LIMIT"


class MemoryCheckError(ValueError):
    """A scenario needs more memory than the machine has available."""


#: glibc's mallopt parameter for the number of malloc arenas (malloc.h).
_M_ARENA_MAX = -8
#: Arenas tcplab allows: the simulation runs on one thread.
ARENAS = 2


def limit_malloc_arenas() -> bool:
    """Cap glibc's malloc arenas at ``ARENAS`` unless ``MALLOC_ARENA_MAX`` is set.

    glibc gives threads their own arenas, each reserving 64 MB of address
    space (up to 8 per core): with the thread pools of numpy and polars a
    small run's process reserves over 1 GB it never uses (VmSize 1.1 GB for a
    91 MB peak on 2 cores, several GB on larger machines), which counts
    against an address-space limit (``ulimit -v``). With 2 arenas the same run
    reserves 0.4 GB. Called when ``tcplab`` is imported, before the thread
    pools start; returns whether the cap was set (glibc on Linux only).
    """
    if "MALLOC_ARENA_MAX" in os.environ or not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        return bool(libc.mallopt(_M_ARENA_MAX, ARENAS))
    except (OSError, AttributeError):
        return False


def available_bytes() -> int | None:
    """Memory available to new work: ``$TCPLAB_MEMORY_LIMIT`` bytes when set,
    else Linux's ``MemAvailable``, or None when the platform does not say."""
    limit = os.environ.get(LIMIT_ENV)
    if limit:
        try:
            return int(float(limit))
        except ValueError:
            raise MemoryCheckError(
                f"${LIMIT_ENV}: value {limit!r}: must be a number of bytes, e.g. 8e9"
            ) from None
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _mb(n: float) -> str:
    for scale, unit in ((1e18, "EB"), (1e15, "PB"), (1e12, "TB")):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


def _quantity(x: float, unit: str) -> str:
    """A field's value as a scenario writes it: durations with their unit."""
    if unit == "s":
        for scale, name in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
            if x >= scale or name == "ns":
                return f'"{x / scale:.3g}{name}"'
    if unit in ("flows", "nodes", "links", "phases"):
        return f"{int(x):,} {unit}"
    return f"{x:.3g} {unit}"


# What to change for parts that do not scale with one number.
_HINTS = {
    "trace.rtt": "set trace.rtt = false, or run shorter",
    "trace.pcap": "capture fewer links, or run shorter",
    "router": "fewer routers or hosts with several links",
    "": "",
}


def _advice(part: Part, room: float, have: float) -> str:
    """What value of the part's field fits in ``room`` bytes (of ``have``)."""
    field, scaling = part["field"], part["scaling"]
    if room <= 0:
        return "even without it, the rest does not fit"
    where = f"fits in the {_mb(have)} available"
    if scaling == 1 and part["bytes"] > 0:
        most = part["number"] * room / part["bytes"]
        if part["unit"] in ("flows", "nodes", "links"):
            return f"at most {int(most):,} {part['unit']} fit in the {_mb(have)} available"
        return f"{field} of at most {_quantity(most, part['unit'])} {where}"
    if scaling == -1 and room > 0:
        least = part["number"] * part["bytes"] / room
        return f"{field} of at least {_quantity(least, part['unit'])} {where}"
    if field.startswith("queue of"):
        return "a smaller queue, or fewer flows filling it"
    return _HINTS.get(field, "")


def _explain(parts: list[Part], need: int, per_run: float) -> str:
    """The parts that make a run too big, largest first, each with its field,
    value and what would fit in ``per_run`` bytes."""
    out = []
    named = [p for p in parts if p["field"]]
    biggest = max((p["bytes"] for p in named), default=0)
    for p in named:
        if p["bytes"] < biggest / 10:
            continue
        advice = _advice(p, per_run - (need - p["bytes"]), per_run)
        line = f"{p['field']} = {p['value']}: {p['what']}, about {_mb(p['bytes'])}"
        out.append(line + (f" ({advice})" if advice else ""))
        if len(out) == 3:
            break
    return "; ".join(out)


def _parts_of(path: str) -> list[Part] | None:
    """The estimate's parts for the scenario file at ``path`` (validated
    again: only a refusal asks), or None when it cannot be read."""
    from tcplab import read_file  # noqa: PLC0415  (tcplab imports this module)

    try:
        text = read_file(path)
        return _core.validate(text, path)["memory"]["parts"]
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def check(
    path: str,
    need: int,
    jobs: int = 1,
    available: int | None = None,
    parts: list[Part] | None = None,
) -> None:
    """Raise ``MemoryCheckError`` when ``jobs`` runs of ``need`` bytes each do
    not fit in the memory available (``available``, or the machine's).
    ``parts`` (``validate``'s ``memory["parts"]``) let the error name the
    fields that make the run big, their values and what would fit."""
    if os.environ.get(ENV, "1") == "0":
        return
    have = available_bytes() if available is None else available
    if have is None:
        return
    jobs = max(jobs, 1)
    total = need * jobs
    if total <= have:
        return
    runs = (
        f"{jobs} runs at once need about {_mb(total)}"
        if jobs > 1
        else (f"a run needs about {_mb(total)}")
    )
    if parts is None:
        parts = _parts_of(path)
    why = _explain(parts, need, have / jobs) if parts else ""
    hint = "use fewer jobs (--jobs); " if jobs > 1 else ""
    if not why:
        hint += "declare fewer flows or smaller queues and traces; "
    raise MemoryCheckError(
        f"{path}: {runs} of memory and this machine has {_mb(have)} available"
        + (f": {why}" if why else " (estimated from its flows, links, queues and traces)")
        + f"; {hint}{ENV}=0 tries anyway"
    )


def guard(path: str) -> Callable[[Estimate], None] | None:
    """What ``_core.run`` calls with its memory estimate before running the
    scenario of ``path`` (the scenario is parsed once): ``check`` for one run,
    or None when the check is off."""
    if os.environ.get(ENV, "1") == "0":
        return None

    def before_run(estimate: Estimate) -> None:
        check(path, int(estimate["bytes"]), parts=estimate["parts"])

    return before_run
