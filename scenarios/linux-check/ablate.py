"""Rerun the simulator side of a finished linux-check against its real-kernel
runs, once per variant of the hosts' settings, and count the cells within
the bounds. The real runs (OUT/<part>/linux, of every part OUT holds) are
reused: only the simulator runs again (seconds), with the same run ids and
seeds. (``tcplab reproduce linux-check --sim-only`` does the same for the
profile as it is.)

    python3 scenarios/linux-check/ablate.py OUT 'rto=rto_estimator = "linux"' 'prr=prr = true'

Each variant is NAME=TOML lines added to every host (";" separates lines);
the variant "none" (the profile as it is) always runs first. Results go to
/tmp/ablate/<variant>/ and a table per variant is printed.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import polars as pl

from tcplab import sweep
from tcplab.compare import comparison
from tcplab.reproduce import _part_sweep, part_groups
from tcplab.studies import get, linux_check


def main() -> None:
    pl.Config.set_tbl_rows(-1)
    base = Path(sys.argv[1])
    variants = {"none": ""}
    for v in sys.argv[2:]:
        name, _, lines = v.partition("=")
        variants[name] = lines.replace(";", "\n") + "\n"
    for name, extra in variants.items():
        out = Path("/tmp/ablate") / name
        shutil.rmtree(out, ignore_errors=True)
        ok = [0, 0, 0, 0]
        parts = {p.name: p for p in get("linux-check").parts}
        groups = part_groups(get("linux-check"))
        # The timing part has no simulated side.
        for part in [g for g in groups if (base / g / "linux").is_dir() and f"{g}/sim" in parts]:
            (out / part).mkdir(parents=True)
            shutil.copytree(base / part / "linux", out / part / "linux")
            spec = parts[f"{part}/sim"]

            def edit(text: str, extra: str = extra) -> str:
                return text.replace('profile = "linux"\n', 'profile = "linux"\n' + extra)

            # The part's sweep as `reproduce` makes it (its selection,
            # overrides and repetitions), the variant's lines added, and
            # the hosts' read timing from the part's real-stack runs.
            sw = _part_sweep(get("linux-check"), spec, False, edit)
            if spec.derive is not None:
                sw.override(spec.derive(base))
            sweep.run_sweep(sw, out / part / "sim")
            df = linux_check.agreement(comparison(out / part, linux_check.label))
            for i, c in enumerate(["goodput_ok", "rtt_ok", "timeouts_ok"]):
                ok[i] += int(df[c].sum())
            ok[3] += df.height
            print(
                df.select(
                    "coords",
                    "flow",
                    (pl.col("goodput_error") * 100).round(1).alias("goodput err %"),
                    (pl.col("rtt_error") * 100).round(1).alias("RTT err %"),
                    pl.col("timeouts_sim").round(1),
                    pl.col("timeouts_linux").round(1),
                )
            )
        print(f"{name}: goodput ok {ok[0]}, RTT ok {ok[1]}, timeouts ok {ok[2]} of {ok[3]} cells")


if __name__ == "__main__":
    main()
