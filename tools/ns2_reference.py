"""Run ns-2.35 on the ns2-check scenarios and store its outputs in the package
(python/tcplab/studies/data/ns2-check/ns2/), for `tcplab reproduce ns2-check`.

A developer's tool, not a CI step: it needs an ns-2.35 built with
../shared/tools/ns2-build.sh (pass it with --ns or $NS2). For every point and
repetition of every ns2-check file (mascolo-quick.toml excepted: its points
are mascolo-a.toml's), it

1. runs tcplab on the task (the same text and seed the study runs), to read
   what the seed drew: each bulk flow's start time and, for mascolo2006
   scenarios B and C, every web transfer (its hosts, start and size), so that
   ns-2 runs the very same arrivals;
2. writes that run's parameters for the Tcl script of its family (barakat.tcl
   or mascolo.tcl beside the outputs), runs ns-2 and parses its records.

Outputs (a run is (file, coords, rep); see ns2/README.md):
- phases.csv: per run, flow and phase, goodput (payload bytes delivered in
  order at the sink over the phase), data segments delivered, sent and
  retransmitted, timeouts, the agent ns-2 ran, and the start time used;
- cwnd.parquet: the cwnd of every bulk flow every TRACE_INTERVAL, repetition 0
  of every point;
- phases-perturbed.csv (with --perturb EPS or EPS@SEED, repeatable):
  phases.csv's rows again with every link rate scaled by 1 + EPS (or each by
  its own 1 + EPS * U(-1, 1)), and a `perturb` column;
  nothing else written: a cell that moves by more than the check's bound
  under EPS = 1e-9 hangs on ns-2's timing ties;
- runs.json: the ns-2 build, each script's SHA-256 and, per run, the wall
  time ns-2 took.

    python tools/ns2_reference.py --ns ~/ns2build/src/ns-2.35/ns [--only mascolo-a] [--jobs 2]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import tomllib

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "python" / "tcplab" / "studies" / "data" / "ns2-check"
NS2 = DATA / "ns2"
SKIP = {"mascolo-quick.toml"}
#: The stored cwnd traces' sampling interval, s (the files trace every 50 ms
#: or 1 s; a Tahoe cycle lasts tens of seconds at these rates).
TRACE_INTERVAL = 1.0

#: tcplab's queue kinds and ns-2's queues (barakat.tcl).
KINDS = {
    None: "droptail",
    "droptail": "droptail",
    "dropfront": "dropfront",
    "randomdrop": "randomdrop",
}


def seconds(v: Any) -> float:
    """A scenario duration ("140ms", "1.5s", "0s") in seconds."""
    s = str(v).strip()
    for unit, f in (("ms", 1e-3), ("us", 1e-6), ("s", 1.0)):
        if s.endswith(unit):
            return float(s[: -len(unit)]) * f
    raise ValueError(f"not a duration: {v!r}")


#: Rates scaled by 1 + PERTURB (--perturb): how much ns-2's own result moves
#: when its timing ties break the other way (set per worker by run_one); with
#: JITTER (a random.Random), each rate by its own 1 + PERTURB * U(-1, 1).
PERTURB = 0.0
JITTER: Any = None


def ns_rate(v: Any) -> str:
    """A scenario rate ("1.5Mbps", "2250000bps") as ns-2 writes it ("1.5Mb");
    in b/s, times 1 + PERTURB, when PERTURB is set."""
    s = str(v).strip()
    for unit, ns, f in (
        ("Gbps", "Gb", 1e9),
        ("Mbps", "Mb", 1e6),
        ("kbps", "Kb", 1e3),
        ("Kbps", "Kb", 1e3),
        ("bps", "", 1.0),
    ):
        if s.endswith(unit):
            if PERTURB:
                eps = PERTURB * (JITTER.uniform(-1.0, 1.0) if JITTER is not None else 1.0)
                return repr(float(s[: -len(unit)]) * f * (1 + eps))
            return s[: -len(unit)] + ns
    raise ValueError(f"not a rate: {v!r}")


def ns_qlim(queue: Mapping[str, Any]) -> int:
    """ns-2's queue-limit for a tcplab packet queue: ns-2 drops an arrival when
    the queue already holds qlim - 1 (queue/drop-tail.cc), tcplab when it holds
    `packets` (the one being sent not counted): qlim = packets + 1. A queue that
    counts the one being sent (`counts_sending`) is ns-2's meaning itself.
    Queue/RED (Random Drop) drops when it holds qlim: qlim = packets."""
    n = int(queue["packets"])
    if queue.get("kind") == "randomdrop":
        return n
    return n if queue.get("counts_sending") else n + 1


def tcl_list(items: list[Any]) -> str:
    return "{" + " ".join(tcl_list(i) if isinstance(i, list) else str(i) for i in items) + "}"


def barakat_params(doc: Mapping[str, Any], flows: list[dict[str, Any]]) -> dict[str, Any]:
    links = doc["link"]
    # The chain, in file order: src-n1, n1-n2, ..., -dst (make_scenarios.py writes it so).
    chain = []
    for ln in links:
        fw, back = ln["forward"], ln["reverse"]
        if seconds(fw["delay"]) != seconds(back["delay"]):
            raise ValueError("barakat.tcl gives both directions the same delay")
        q = fw["queue"]
        chain.append(
            [
                ns_rate(fw["rate"]),
                f"{seconds(fw['delay']) * 1e3:g}ms",
                ns_qlim(q),
                KINDS[q.get("kind")],
                ns_rate(back["rate"]),
            ]
        )
    names = [ln["between"] for ln in links]
    for a, b in zip(names, names[1:]):
        if a[1] != b[0]:
            raise ValueError(f"links not a chain: {names}")
    host = doc["defaults"]["host"]
    (f,) = flows
    return {
        "script": "barakat.tcl",
        "chain": chain,
        "packet_size": host["mss"],
        "window": host["window"],
        "start": f["start_s"],
        "agent": "Agent/TCP (Tahoe)",
    }


MASCOLO_AGENTS = {
    "SACK": "Agent/TCP/Sack1",
    "HSTCP": "Agent/TCP/Sack1 windowOption_ 8",
    "FAST": "Agent/TCP/Fast (CUBIN module, every RTT)",
}


def mascolo_params(
    doc: Mapping[str, Any],
    flows: list[dict[str, Any]],
    transfers: list[dict[str, Any]],
    variant: str,
) -> dict[str, Any]:
    host_defaults = doc["defaults"]["host"]
    acc = host_defaults["access"]
    hosts = []
    for h in doc["host"]:
        names = h.get("names") or [h["name"]]
        a = {**acc, **h.get("access", {})}
        for n in names:
            hosts.append(
                [
                    n,
                    a["router"],
                    ns_rate(a["rate"]),
                    f"{seconds(a['delay']) * 1e3:g}ms",
                    ns_qlim(a["queue"]),
                ]
            )
    (bn,) = doc["link"]
    fl = {f["name"]: f for f in doc["flow"]}
    flist = []
    for f in flows:
        stop = fl[f["name"]].get("stop")
        flist.append(
            [
                f["name"],
                f["src"],
                f["dst"],
                repr(float(f["start_s"])),
                repr(seconds(stop)) if stop else -1,
            ]
        )
    web = []
    mss = int(host_defaults["mss"])
    for t in transfers:
        web.append([t["src"], t["dst"], repr(float(t["start_s"])), -(-int(t["size_bytes"]) // mss)])
    return {
        "script": "mascolo.tcl",
        "variant": variant,
        "bneck": [ns_rate(bn["rate"]), f"{seconds(bn['delay']) * 1e3:g}ms", ns_qlim(bn["queue"])],
        "hosts": hosts,
        "flows": flist,
        "web": web,
        "trace_flows": [f["name"] for f in flows],
        "agent": MASCOLO_AGENTS.get(variant, f"Agent/TCP/Linux ({variant})"),
    }


def task_params(task: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run tcplab on the task; the ns-2 parameters of the same run."""
    from tcplab import _core
    from tcplab.results import Results

    doc = tomllib.loads(task.text)
    res = Results(_core.run(task.text, task.path, task.seed), scenario=task.text)
    flows = res.flows.select("name", "src", "dst", "start_s").to_dicts()
    phases = [
        0.0,
        *(seconds(p) for p in doc.get("measure", {}).get("phases", [])),
        seconds(doc["duration"]),
    ]
    if "barakat" in doc["name"]:
        p = barakat_params(doc, flows)
    else:
        variant = task.coords["defaults.host"]["label"]
        tr = res.transfers
        transfers = tr.select("src", "dst", "start_s", "size_bytes").to_dicts() if tr.height else []
        p = mascolo_params(doc, flows, transfers, variant)
    p.update(
        duration=seconds(doc["duration"]),
        phases=phases,
        seed=1 + task.rep,
        trace=int(task.rep == 0),
        trace_interval=TRACE_INTERVAL,
    )
    return p, {
        "mss": int(doc["defaults"]["host"]["mss"]),
        "starts": {f["name"]: f["start_s"] for f in flows},
    }


def write_params(p: Mapping[str, Any], path: Path) -> None:
    lines = []
    for k, v in p.items():
        if k in ("script", "agent"):
            continue
        val = tcl_list(v) if isinstance(v, list) else str(v)
        lines.append(f"set P({k}) {val}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def run_one(ns: str, file: str, point: int, rep: int, perturb: str = "0") -> dict[str, Any]:
    """One run; ``perturb`` is "EPS" (every rate times 1 + EPS) or "EPS@SEED"
    (each rate times its own 1 + EPS * U(-1, 1), drawn from SEED, the file,
    the point and the repetition)."""
    import random

    global PERTURB, JITTER  # noqa: PLW0603 - one setting per worker process
    eps, _, seed = perturb.partition("@")
    PERTURB = float(eps)
    JITTER = random.Random(f"{seed}/{file}/{point}/{rep}") if seed else None
    from tcplab import read_file
    from tcplab.sweep import load_sweep

    path = str(DATA / file)
    sw = load_sweep(read_file(path), path)
    task = sw.task(point, rep)
    p, info = task_params(task)
    with tempfile.TemporaryDirectory() as d:
        pf = Path(d) / "params.tcl"
        write_params(p, pf)
        t0 = time.perf_counter()
        out = subprocess.run(
            [ns, str(NS2 / p["script"]), str(pf)], capture_output=True, text=True, check=False
        )
        wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(
            f"{file} point {point} rep {rep}: ns exited {out.returncode}\n{out.stderr[-2000:]}"
        )
    coords = json.dumps(task.coords, sort_keys=True)
    phases, cwnd = [], []
    for line in out.stdout.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "P":
            flow, k, t0s, t1s, dlv, sent, rtx, to = f[1:9]
            dur = float(t1s) - float(t0s)
            phases.append(
                {
                    "file": file,
                    "coords": coords,
                    "rep": rep,
                    "flow": flow,
                    "phase": int(k),
                    "start_s": float(t0s),
                    "end_s": float(t1s),
                    "goodput_bps": int(dlv) * info["mss"] * 8 / dur,
                    "delivered_pkts": int(dlv),
                    "segs_sent": int(sent),
                    "segs_retrans": int(rtx),
                    "timeouts": int(to),
                    "agent": p["agent"],
                    "flow_start_s": info["starts"][flow],
                }
            )
        elif f[0] == "W":
            cwnd.append(
                {
                    "file": file,
                    "coords": coords,
                    "flow": f[1],
                    "time_s": float(f[2]),
                    "cwnd": float(f[3]),
                }
            )
    return {
        "phases": phases,
        "cwnd": cwnd,
        "run": {"file": file, "coords": coords, "rep": rep, "ns2_wall_s": wall},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ns", default=os.environ.get("NS2", ""), help="the ns-2.35 binary")
    ap.add_argument(
        "--only", action="append", default=[], help="a file stem (repeatable), e.g. mascolo-a"
    )
    ap.add_argument("--reps", type=int, default=None, help="repetitions (default: the file's)")
    ap.add_argument(
        "--from-rep",
        type=int,
        default=0,
        help="run repetitions from this one on and keep the stored rows of the earlier ones "
        "(adds seeds to a file without rerunning the stored ones)",
    )
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument(
        "--perturb",
        action="append",
        default=[],
        help="EPS: scale every link rate by 1 + EPS; EPS@SEED: each rate by its own "
        "1 + EPS * U(-1, 1); repeatable (a run set per value); writes phases-perturbed.csv "
        "only (e.g. 1e-9: which cells hang on ns-2's timing ties)",
    )
    args = ap.parse_args()
    if not args.ns or not Path(args.ns).is_file():
        sys.exit(
            "give the ns-2.35 binary with --ns or $NS2 (built by ../shared/tools/ns2-build.sh)"
        )
    from tcplab import read_file
    from tcplab.sweep import load_sweep

    files = sorted(p.name for p in DATA.glob("*.toml") if p.name not in SKIP)
    if args.only:
        files = [f for f in files if f.removesuffix(".toml") in args.only]
    jobs = []
    for file in files:
        path = str(DATA / file)
        sw = load_sweep(read_file(path), path)
        reps = args.reps if args.reps is not None else sw.spec.repetitions
        for eps in args.perturb or ["0"]:
            jobs += [
                (file, pt, rep, eps)
                for pt in range(len(sw.points))
                for rep in range(args.from_rep, reps)
            ]
    print(f"{len(jobs)} runs of {len(files)} files", file=sys.stderr)
    results = []
    import multiprocessing as mp

    with ProcessPoolExecutor(args.jobs, mp_context=mp.get_context("spawn")) as ex:
        futs = [ex.submit(run_one, args.ns, *j) for j in jobs]
        for i, fu in enumerate(futs):
            results.append(fu.result())
            print(f"\r{i + 1}/{len(jobs)}", end="", file=sys.stderr)
    print(file=sys.stderr)
    NS2.mkdir(parents=True, exist_ok=True)
    # Rows of files not rerun are kept (--only refreshes part of the data), and
    # so are the rerun files' repetitions before --from-rep.
    done = set(files)

    def kept(r: Mapping[str, Any]) -> bool:
        if "perturb" in r and r["perturb"] not in args.perturb:
            return True  # another perturbation's run set
        return r["file"] not in done or int(r["rep"]) < args.from_rep

    dest = NS2 / ("phases-perturbed.csv" if args.perturb else "phases.csv")
    rows = []
    if dest.exists():
        with dest.open(newline="", encoding="utf-8") as fh:
            rows = [r for r in csv.DictReader(fh) if kept(r)]
    for r, (_, _, _, eps) in zip(results, jobs, strict=True):
        rows += [{**p, "perturb": eps} for p in r["phases"]] if args.perturb else r["phases"]
    with dest.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[-1].keys()), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    if args.perturb:
        return
    import polars as pl

    dest = NS2 / "cwnd.parquet"
    rows_cw = [c for r in results for c in r["cwnd"]]
    new = pl.DataFrame(rows_cw) if rows_cw else None
    # cwnd traces are of repetition 0 only: kept unless it was rerun.
    old = (
        pl.read_parquet(dest).filter(~pl.col("file").is_in(list(done)) | (args.from_rep > 0))
        if dest.exists()
        else None
    )
    cw = new if old is None else old if new is None else pl.concat([old, new])
    if cw is not None:
        cw.write_parquet(dest, compression="zstd", compression_level=19)
    meta_path = NS2 / "runs.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.exists() else {"runs": []}
    meta["ns2"] = (
        "ns-2.35 (paultsr/ns-allinone-2.35, built by ../shared/tools/ns2-build.sh); "
        "mascolo-a-fast: the same with the CUBIN FAST module (tools/ns2_fast_module.sh)"
    )
    meta["scripts"] = {
        s.name: hashlib.sha256(s.read_bytes()).hexdigest() for s in sorted(NS2.glob("*.tcl"))
    }
    meta["runs"] = [r for r in meta["runs"] if kept(r)] + [r["run"] for r in results]
    meta_path.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
