#!/usr/bin/env python3
"""Compare tcplab with ns-3 on the Braud & Heusse 2016 long-lived-flows scenario.

(a) Runs ``tcplab run scenarios/braud2016/long-newreno.toml --out <tmpdir>``
    (``long-newreno-buf250.toml`` with ``--uplink-buffer 250``) ``--repeat``
    times (3 by default) as a subprocess and keeps the best wall time of the
    whole process.  ``tcplab`` is taken from PATH, or else run as
    ``python -m tcplab`` with this interpreter.
(b) Runs ``bench/ns3_braud2016.py --json`` once (it is slow) with the
    interpreter given by ``--ns3-python`` (this one by default), and times the
    whole process too.

Then prints a table: tool, process wall time, in-simulator wall time (when the
tool reports it), download and upload utilisation (goodput 200-800 s over
10 Mb/s and 2 Mb/s), and the ns-3 / tcplab wall-time ratios.

tcplab's utilisations are read from what it writes in ``--out``: the flows
with a ``goodput_bps`` in its ``summary.json`` (or any JSON file there).  The
download is the flow named ``*down*``, else the one sent by ``server``; the
upload the flow named ``*up*``, else the one sent by ``client``.  They show as
"n/a" when none is found.

Exit status: 0 when tcplab ran (even without ns-3, which is then reported
with how to install it), 1 when the tcplab side could not run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
from ns3_braud2016 import NS3_CC  # noqa: E402 (beside this script)

SCENARIOS = {  # tcplab scenario for each uplink buffer size
    40: "scenarios/braud2016/long-newreno.toml",
    250: "scenarios/braud2016/long-newreno-buf250.toml",
}
NS3_SCRIPT = BENCH / "ns3_braud2016.py"
DOWN_RATE_BPS = 10_000_000
UP_RATE_BPS = 2_000_000
NS3_NOT_INSTALLED = 2  # exit status of ns3_braud2016.py without ns-3
INSTALL_HINT = (
    "ns-3 is not installed for {python}.\n"
    "  install it:  python3 -m venv /tmp/ns3venv && /tmp/ns3venv/bin/pip install ns3\n"
    "  then:        python bench/compare_ns3.py --ns3-python /tmp/ns3venv/bin/python\n"
    "  (or `pip install ns3` into the environment that runs this script)"
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--uplink-buffer",
        type=int,
        choices=sorted(SCENARIOS),
        default=40,
        help="uplink buffer in packets: picks the tcplab scenario and the ns-3 run (default 40)",
    )
    p.add_argument(
        "--scenario",
        help="another tcplab scenario (path from the repository root); default:"
        f" {SCENARIOS[40]}, or {SCENARIOS[250]} with --uplink-buffer 250",
    )
    p.add_argument("--repeat", type=int, default=3, help="tcplab runs, best kept (default 3)")
    p.add_argument(
        "--ns3-python",
        default=sys.executable,
        help="interpreter that has ns-3 (`pip install ns3`); default: this one",
    )
    p.add_argument("--skip-ns3", action="store_true", help="time tcplab only")
    p.add_argument(
        "--cc",
        choices=sorted(NS3_CC),
        default="newreno",
        help="run both flows with this controller in both tools (tcplab's name; the"
        ' scenario\'s cc = "newreno" is swapped in a temporary copy); default newreno',
    )
    args = p.parse_args(argv)
    if args.scenario is None:
        args.scenario = SCENARIOS[args.uplink_buffer]
    return args


def tcplab_command() -> list[str]:
    exe = shutil.which("tcplab")
    return [exe] if exe else [sys.executable, "-m", "tcplab"]


def _flows_in(obj) -> list[dict]:
    """Every dict with a ``goodput_bps`` found anywhere in a JSON value."""
    found: list[dict] = []
    if isinstance(obj, dict):
        if "goodput_bps" in obj:
            found.append(obj)
        for v in obj.values():
            found.extend(_flows_in(v))
    elif isinstance(obj, list):
        for v in obj:
            found.extend(_flows_in(v))
    return found


def _tcplab_sim_wall(obj) -> float | None:
    if isinstance(obj, dict):
        meta = obj.get("meta")
        if isinstance(meta, dict) and isinstance(meta.get("wall_s"), (int, float)):
            return float(meta["wall_s"])
        if isinstance(obj.get("wall_s"), (int, float)):
            return float(obj["wall_s"])
    return None


def read_tcplab_results(out: Path) -> dict:
    """Best-effort: utilisations and simulator wall time from tcplab's --out."""
    flows: list[dict] = []
    sim_wall = None
    for path in sorted(out.rglob("*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        flows.extend(_flows_in(data))
        if sim_wall is None:
            sim_wall = _tcplab_sim_wall(data)

    def pick(name_part: str, sender: str) -> float | None:
        for f in flows:
            if name_part in str(f.get("name", "")).lower():
                return float(f["goodput_bps"])
        for f in flows:
            if str(f.get("src", "")).lower() == sender:
                return float(f["goodput_bps"])
        return None

    down, up = pick("down", "server"), pick("up", "client")
    return {
        "down_util": None if down is None else down / DOWN_RATE_BPS,
        "up_util": None if up is None else up / UP_RATE_BPS,
        "sim_wall_s": sim_wall,
    }


def run_tcplab(scenario: Path, repeat: int) -> dict | None:
    cmd = tcplab_command()
    best = None
    results: dict = {}
    for i in range(repeat):
        with tempfile.TemporaryDirectory(prefix="tcplab-bench-") as tmp:
            full = [*cmd, "run", str(scenario), "--out", tmp]
            t0 = time.perf_counter()
            proc = subprocess.run(full, cwd=REPO, capture_output=True, text=True, check=False)
            wall = time.perf_counter() - t0
            if proc.returncode != 0:
                print(
                    f"tcplab failed (exit {proc.returncode}): {' '.join(full)}",
                    file=sys.stderr,
                )
                print(_tail(proc.stderr or proc.stdout), file=sys.stderr)
                return None
            print(f"  tcplab run {i + 1}/{repeat}: {wall:.2f} s", file=sys.stderr)
            if best is None or wall < best:
                best = wall
            if not results:
                results = read_tcplab_results(Path(tmp))
    return {"tool": "tcplab", "wall_s": best, **results}


def run_ns3(python: str, uplink_buffer: int, cc: str) -> dict | None:
    cmd = [python, str(NS3_SCRIPT), "--json", "--uplink-buffer", str(uplink_buffer), "--cc", cc]
    print(f"  ns-3: {' '.join(cmd)} (takes about half a minute)", file=sys.stderr)
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=False)
    except OSError as exc:
        print(f"cannot run {python}: {exc}", file=sys.stderr)
        return None
    wall = time.perf_counter() - t0
    if proc.returncode == NS3_NOT_INSTALLED:
        print(INSTALL_HINT.format(python=python), file=sys.stderr)
        return None
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        print(f"ns-3 run failed (exit {proc.returncode}):", file=sys.stderr)
        print(_tail(proc.stderr or proc.stdout), file=sys.stderr)
        return None
    r = json.loads(lines[-1])
    return {
        "tool": f"ns-3 {r.get('ns3_version', '?')}",
        "wall_s": wall,
        "sim_wall_s": r.get("wall_s"),
        "down_util": r.get("down_util"),
        "up_util": r.get("up_util"),
    }


def _tail(text: str, n: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-n:])


def _fmt(x: float | None, spec: str) -> str:
    return "n/a" if x is None else format(x, spec)


def print_table(rows: list[dict]) -> None:
    head = f"{'tool':<16} {'process wall s':>14} {'sim wall s':>10} {'down util':>9} {'up util':>8}"
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r['tool']:<16} {_fmt(r['wall_s'], '.2f'):>14}"
            f" {_fmt(r.get('sim_wall_s'), '.2f'):>10}"
            f" {_fmt(r.get('down_util'), '.3f'):>9} {_fmt(r.get('up_util'), '.3f'):>8}"
        )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    scenario = (REPO / args.scenario).resolve()

    tcplab = None
    if not scenario.is_file():
        print(
            f"tcplab scenario {args.scenario} does not exist yet"
            f" (looked for {scenario}); skipping the tcplab run.",
            file=sys.stderr,
        )
    else:
        print(f"tcplab: {' '.join(tcplab_command())} run {args.scenario}", file=sys.stderr)
        with tempfile.TemporaryDirectory(prefix="tcplab-cc-") as tmp:
            run_file = scenario
            if args.cc != "newreno":
                text = scenario.read_text()
                if 'cc = "newreno"' not in text:
                    print(
                        f'{args.scenario} has no cc = "newreno" to swap for {args.cc}',
                        file=sys.stderr,
                    )
                    return 1
                run_file = Path(tmp) / scenario.name
                run_file.write_text(text.replace('cc = "newreno"', f'cc = "{args.cc}"'))
            tcplab = run_tcplab(run_file, max(1, args.repeat))

    ns3 = None if args.skip_ns3 else run_ns3(args.ns3_python, args.uplink_buffer, args.cc)

    rows = [r for r in (tcplab, ns3) if r is not None]
    print()
    print(
        f"Braud & Heusse 2016, long-lived {args.cc} download + upload,"
        f" uplink buffer {args.uplink_buffer} pkts"
    )
    if rows:
        print_table(rows)
    if tcplab and ns3:
        print(
            f"\nns-3 / tcplab wall time (whole processes): {ns3['wall_s'] / tcplab['wall_s']:.1f}x"
        )
        if ns3.get("sim_wall_s") is not None:
            print(
                "ns-3 Simulator::Run only / tcplab whole process:"
                f" {ns3['sim_wall_s'] / tcplab['wall_s']:.1f}x"
            )
    if tcplab is None:
        print("\ntcplab: no result (see above).")
    if ns3 is None and not args.skip_ns3:
        print("ns-3: no result (see above).")
    return 0 if tcplab is not None else 1


if __name__ == "__main__":
    sys.exit(main())
