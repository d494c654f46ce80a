"""Store a study's real-stack runs in the package, for ``--sim-only``.

    python tools/store_kernel_runs.py OUT [--study linux-check] [--part GROUP ...]

OUT is the study's output directory (``tcplab reproduce linux-check --out OUT``
on a machine with root). Every real-stack part found there (``OUT/<group>/linux``,
or the ones named) is packed (tcplab.stored.pack) into
``python/tcplab/studies/data/<study>/kernel/<group>.json.gz``, replacing the
stored file of that group. Run it on the machine that made the runs: the
origin recorded is this machine's kernel release and cores, and the dates of
the runs' files.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import os
import platform
import sys
from pathlib import Path

from tcplab import stored
from tcplab.studies import linux_check
from tcplab.sweep import MANIFEST, RUN_FILE, RUNS, done_runs

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "python" / "tcplab" / "studies" / "data"


def _hz() -> int | None:
    """CONFIG_HZ of the running kernel, where its config says."""
    for p in (Path("/proc/config.gz"), Path(f"/boot/config-{platform.release()}")):
        try:
            text = gzip.decompress(p.read_bytes()).decode() if p.suffix == ".gz" else p.read_text()
        except OSError:
            continue
        for line in text.splitlines():
            if line.startswith("CONFIG_HZ="):
                return int(line.split("=", 1)[1])
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--study", default="linux-check")
    ap.add_argument("--part", action="append", default=[], metavar="GROUP")
    args = ap.parse_args()
    groups = args.part or sorted(
        p.parent.name for p in args.out.glob(f"*/linux/{MANIFEST}") if p.is_file()
    )
    if not groups:
        print(f"{args.out}: no real-stack part (no */linux/{MANIFEST})", file=sys.stderr)
        return 2
    for g in groups:
        d = args.out / g / "linux"
        ids = sorted(done_runs(d))
        if not ids:
            print(f"{d}: no finished run", file=sys.stderr)
            return 2
        days = sorted(
            dt.datetime.fromtimestamp(os.path.getmtime(d / RUNS / r / RUN_FILE), dt.timezone.utc)
            .date()
            .isoformat()
            for r in ids
        )
        origin = {
            "kernel": platform.release(),
            "hz": _hz(),
            "cores": os.cpu_count(),
            # The simulated side's receive-buffer limit (linux-check).
            "tcp_rmem": linux_check.machine_tcp_rmem(),
            "runs": len(ids),
            "first_day": days[0],
            "last_day": days[-1],
        }
        path = stored.write(stored.pack(d, origin), DATA / args.study / "kernel" / f"{g}.json.gz")
        print(f"{g}: {len(ids)} runs -> {path.relative_to(ROOT)} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
