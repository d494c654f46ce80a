"""The real-stack backend from Python: run a scenario on the real Linux TCP
stack (``tcplab run --backend linux``), and find or remove what a run left
behind (``tcplab cleanup``).

The work is the core's (crates/emu): each host is a network namespace held
by a thread of the running process, joined to the others by TUN devices and
tcplab's link emulator. Nothing is named or persistent outside the process,
so a run that ends in any way (Ctrl-C, SIGKILL, a crash) leaves nothing;
``cleanup`` exists for what a process still running holds (a run stopped in
a debugger, say) and for names a user created by hand with tcplab's prefix.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tcplab import _core
from tcplab.results import Results

__all__ = ["THREAD_PREFIX", "Leftover", "cleanup", "leftovers", "run"]

THREAD_PREFIX = "tcplab-ns-"
"""The namespace threads' names (crates/emu/src/netns.rs): a process with such
a thread holds hosts' namespaces."""
NAME_PREFIX = "tcplab"
"""Devices and named namespaces with this prefix are tcplab's."""


def run(text: str, path: str, seed: int | None = None) -> Results:
    """Run a scenario's text on the real stack; raises ``_core.ScenarioError``
    or ``_core.BackendError``."""
    return Results(_core.run_linux(text, path, seed), scenario=text)


@dataclass(frozen=True)
class Leftover:
    """Something a tcplab run holds or left: ``kind`` is ``process``,
    ``device`` or ``netns``; ``name`` says which."""

    kind: str
    name: str
    pid: int = 0


def _processes() -> list[Leftover]:
    me = os.getpid()
    found: list[Leftover] = []
    for task_comm in Path("/proc").glob("[0-9]*/task/*/comm"):
        try:
            comm = task_comm.read_text().strip()
        except OSError:
            continue
        if not comm.startswith(THREAD_PREFIX):
            continue
        pid = int(task_comm.parts[2])
        if pid != me and all(f.pid != pid for f in found):
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                cmd = "?"
            found.append(Leftover("process", f"pid {pid}: {cmd.strip()}", pid))
    return found


def _ip_lines(*args: str) -> list[str]:
    try:
        out = subprocess.run(["ip", *args], capture_output=True, text=True, check=False)
    except OSError:
        return []
    return out.stdout.splitlines()


def leftovers() -> list[Leftover]:
    """Processes holding tcplab namespaces (other than this one), and devices
    or named namespaces with tcplab's prefix in the root namespace."""
    found = _processes()
    for line in _ip_lines("-o", "link", "show"):
        parts = line.split(":")
        if len(parts) > 1 and parts[1].strip().split("@")[0].startswith(NAME_PREFIX):
            found.append(Leftover("device", parts[1].strip().split("@")[0]))
    for line in _ip_lines("netns", "list"):
        name = line.split()[0] if line.split() else ""
        if name.startswith(NAME_PREFIX):
            found.append(Leftover("netns", name))
    return found


def cleanup(grace_s: float = 2.0) -> list[Leftover]:
    """Remove every leftover: processes get SIGTERM, then SIGKILL after
    ``grace_s``; devices and named namespaces are deleted. Returns what was
    found."""
    found = leftovers()
    procs = [f for f in found if f.kind == "process"]
    for f in procs:
        with contextlib.suppress(ProcessLookupError):
            os.kill(f.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while procs and time.monotonic() < deadline:
        procs = [f for f in procs if Path(f"/proc/{f.pid}").exists()]
        time.sleep(0.05)
    for f in procs:
        with contextlib.suppress(ProcessLookupError):
            os.kill(f.pid, signal.SIGKILL)
    for f in found:
        if f.kind == "device":
            subprocess.run(["ip", "link", "delete", f.name], capture_output=True, check=False)
        elif f.kind == "netns":
            subprocess.run(["ip", "netns", "delete", f.name], capture_output=True, check=False)
    return found
