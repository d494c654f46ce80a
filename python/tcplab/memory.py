"""Refuse a run the machine cannot hold, before it starts.

The core estimates what a run of a scenario needs (``_core.validate(...)
["memory_bytes"]``, and ``_core.run`` hands it to ``before_run`` once it has
parsed the scenario: flows, queues, traces; within a factor of two of what runs
measure). A run, or a sweep running ``jobs`` of them at once, whose estimate
exceeds the memory available is refused with an error naming the file, the
figure and what to change, instead of failing part-way on an allocation.
``TCPLAB_MEMORY_CHECK=0`` skips the check; ``TCPLAB_MEMORY_LIMIT=BYTES``
sets the memory to count on instead of what the machine reports (a share of a
machine others use too).
"""

from __future__ import annotations

import os
from collections.abc import Callable

__all__ = ["MemoryCheckError", "available_bytes", "check", "guard"]

ENV = "TCPLAB_MEMORY_CHECK"
LIMIT_ENV = "TCPLAB_MEMORY_LIMIT"


class MemoryCheckError(ValueError):
    """A scenario needs more memory than the machine has available."""


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
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


def check(path: str, need: int, jobs: int = 1, available: int | None = None) -> None:
    """Raise ``MemoryCheckError`` when ``jobs`` runs of ``need`` bytes each do
    not fit in the memory available (``available``, or the machine's)."""
    if os.environ.get(ENV, "1") == "0":
        return
    have = available_bytes() if available is None else available
    if have is None:
        return
    total = need * max(jobs, 1)
    if total <= have:
        return
    runs = (
        f"{jobs} runs at once need about {_mb(total)}"
        if jobs > 1
        else (f"a run needs about {_mb(total)}")
    )
    hint = (
        "use fewer jobs (--jobs), or " if jobs > 1 else ""
    ) + f"declare fewer flows or smaller queues and traces; {ENV}=0 tries anyway"
    raise MemoryCheckError(
        f"{path}: {runs} of memory (estimated from its flows, queues and traces) and "
        f"this machine has {_mb(have)} available: {hint}"
    )


def guard(path: str) -> Callable[[int], None] | None:
    """What ``_core.run`` calls with its memory estimate before running the
    scenario of ``path`` (the scenario is parsed once): ``check`` for one run,
    or None when the check is off."""
    if os.environ.get(ENV, "1") == "0":
        return None

    def before_run(need: int) -> None:
        check(path, need)

    return before_run
