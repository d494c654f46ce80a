"""More seeds of one linux-check point, on the simulator and (as root) on
the real stack, pooled with the part's own runs: whether a cell outside a
bound is the seeds' spread or a difference. The part's sweep as
``tcplab reproduce`` makes it, that one point selected, and N repetitions
from another base seed (so none repeats a stored run's seed); the
simulated hosts get the part's timing from OUT as in the suite. With
``--base-seed`` equal to the part's (1) the new runs repeat the stored
seeds first: the real stack's runs are new runs of the same seeds (its
timing is its own), the simulator's the same runs again, so nothing is
pooled then.

    sudo python3 scenarios/linux-check/seeds.py OUT cells 15 --linux \\
        'link[1].reverse.queue.packets=250' 'host[server].cc=reno' 'host[client].cc=cubic'
    python3 scenarios/linux-check/seeds.py OUT cells 15 ...      # the simulator's side only

OUT is a linux-check output directory holding the part (a run or
``--sim-only``, which restores the stored kernel runs). New runs go to
OUT/seeds-<part>-<point>-<base seed>/{sim,linux}, which it resumes: a
run that finished is not run again, and a larger N adds repetitions.
Prints, per flow, each side's mean goodput and its standard error, the
difference and its z: over the new runs, over the part's own, and
(another base seed) over both.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path
from typing import Any

from tcplab import sweep
from tcplab.compare import _flow_metrics, _run_dirs
from tcplab.reproduce import _part_sweep
from tcplab.studies import get, linux_check
from tcplab.sweep import RUN_FILE


def _goodputs(out: Path, side: str, coords: dict[str, Any]) -> dict[str, list[float]]:
    """Per flow, the goodput (b/s) of every run of ``out/side`` at ``coords``."""
    found: dict[str, list[float]] = {}
    for run in _run_dirs(out / side).values():
        prov = json.loads((run / RUN_FILE).read_text(encoding="utf-8"))
        if any(str(prov["coords"].get(k)) != str(v) for k, v in coords.items()):
            continue
        for r in _flow_metrics(run):
            found.setdefault(r["flow"], []).append(float(r["goodput_bps"]))
    return found


def _mean_se(xs: list[float]) -> tuple[float, float]:
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, float("nan")
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))
    return m, sd / math.sqrt(len(xs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("part")
    ap.add_argument("n", type=int)
    ap.add_argument("coords", nargs="+", help="COORDINATE=VALUE, one per sweep axis")
    ap.add_argument("--linux", action="store_true", help="run the real stack too (root)")
    ap.add_argument("--base-seed", type=int, default=101, help="the new runs' (default 101)")
    a = ap.parse_args()
    coords = {}
    for kv in a.coords:
        k, _, v = kv.partition("=")
        coords[k] = int(v) if v.isdigit() else v
    study = get("linux-check")
    parts = {p.name: p for p in study.parts}
    if f"{a.part}/sim" not in parts:
        ap.error(f"no part {a.part!r} with a simulated side")
    # The point's coordinates in the sweep's order (its label reads them so),
    # every axis given: otherwise several points would be pooled.
    axes = [name for name, _ in _part_sweep(study, parts[f"{a.part}/sim"], False).spec.axes]
    if set(coords) != set(axes):
        ap.error(f"give one value for each of the part's coordinates: {', '.join(axes)}")
    coords = {k: coords[k] for k in axes}
    point = re.sub(r"[^A-Za-z0-9]+", "-", linux_check.label(coords)).strip("-")
    new = a.out / f"seeds-{a.part}-{point}-{a.base_seed}"
    for side in ("sim", "linux") if a.linux else ("sim",):
        spec = parts[f"{a.part}/{side}"]
        sw = _part_sweep(study, spec, False)
        sw.select({k: [v] for k, v in coords.items()})
        # The repetitions and base seed are set past `override`, so that
        # they do not count in the sweep's hash: a later call with a larger
        # N resumes the same directory and runs only the new repetitions.
        sw.spec.repetitions = a.n
        part_seed, sw.base_seed = sw.base_seed, a.base_seed
        if spec.derive is not None:
            sw.override(spec.derive(a.out))
        sweep.run_sweep(sw, new / side, resume=True, jobs=1 if side == "linux" else None)
    own = {side: _goodputs(a.out / a.part, side, coords) for side in ("sim", "linux")}
    more = {side: _goodputs(new, side, coords) for side in ("sim", "linux")}
    groups = [("new runs", more), (f"the part's runs in {a.out}", own)]
    if a.base_seed != part_seed:
        both = {
            side: {f: own[side].get(f, []) + more[side].get(f, []) for f in own[side]}
            for side in ("sim", "linux")
        }
        groups.append(("both", both))
    print(f"{a.part}: {linux_check.label(coords)}")
    for name, g in groups:
        print(f"  {name}")
        for flow in sorted(g["sim"]):
            s, lx = g["sim"][flow], g["linux"].get(flow, [])
            if not s or not lx:
                continue
            (ms, ses), (ml, sel) = _mean_se(s), _mean_se(lx)
            se = math.hypot(ses, sel)
            z = f"{(ms - ml) / se:+.1f}" if se > 0 else "n/a"
            print(
                f"    {flow}: simulator {ms / 1e6:.3f} Mb/s (se {ses / 1e6:.3f}, {len(s)} runs), "
                f"kernel {ml / 1e6:.3f} (se {sel / 1e6:.3f}, {len(lx)} runs): "
                f"{100 * (ms / ml - 1):+.1f} %, z {z}"
            )


if __name__ == "__main__":
    main()
