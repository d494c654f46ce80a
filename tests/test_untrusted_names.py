"""Names from a scenario never lead a file outside ``--out``.

Every name a scenario gives that could reach a file name (hosts, routers,
the links of ``[trace] pcap``, flows, generators, the scenario's own name)
is tried with path traversal, absolute paths and hidden names. Either the
scenario is refused with an error naming the field, or it runs; in both cases
no file appears anywhere but under ``--out``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import run_cli

TEMPLATE = """\
name = "{scenario}"
duration = "1s"
[trace]
pcap = ["{a}->{r}"]
[[host]]
name = "{a}"
[[host]]
names = ["{b}"]
[[router]]
name = "{r}"
[[link]]
between = ["{a}", "{r}"]
rate = "10Mbps"
delay = "1ms"
[[link]]
between = ["{r}", "{b}"]
rate = "10Mbps"
delay = "1ms"
[[flow]]
name = "{flow}"
from = "{a}"
to = "{b}"
[[traffic]]
name = "{traffic}"
from = "{a}"
to = "{b}"
rate = 5.0
size = {{ dist = "fixed", value = 2000 }}
"""

SAFE = {"scenario": "s", "a": "a", "b": "b", "r": "r", "flow": "f", "traffic": "t"}
NODE_FIELDS = {"a": "host[0].name", "b": "host[1].names[0]", "r": "router[0].name"}
EVIL = ["../../escape/f", "/tmp/abs-escape", "..", ".hidden", "x/y", "-x"]


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def run_in_sandbox(tmp_path: Path, text: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run ``text`` with --out two levels down; return the process and every
    path created under tmp_path outside --out."""
    tmp_path.mkdir(exist_ok=True)
    box = tmp_path / "box"
    out = box / "inner" / "out"
    out.parent.mkdir(parents=True)
    scenario = box / "s.toml"
    scenario.write_text(text)
    before = tree(tmp_path)
    proc = run_cli("run", str(scenario), "--out", str(out), "-q", cwd=box)
    created = {p for p in tree(tmp_path) - before if not p.startswith("box/inner/out")}
    return proc, created


def test_the_safe_template_runs_and_writes_its_capture(tmp_path: Path) -> None:
    proc, created = run_in_sandbox(tmp_path, TEMPLATE.format(**SAFE))
    assert proc.returncode == 0, proc.stderr
    assert created == set()
    assert (tmp_path / "box/inner/out/capture_a_r.pcap").is_file()


@pytest.mark.parametrize("evil", EVIL)
@pytest.mark.parametrize("key", sorted(NODE_FIELDS))
def test_a_node_name_that_leads_elsewhere_is_refused(key: str, evil: str, tmp_path: Path) -> None:
    proc, created = run_in_sandbox(tmp_path, TEMPLATE.format(**{**SAFE, key: evil}))
    assert created == set(), f"{evil!r} as {key} created {created}"
    assert proc.returncode == 2, proc
    err = proc.stderr
    assert err.startswith("error: ")
    assert "Traceback" not in err
    assert f"field `{NODE_FIELDS[key]}`" in err, err
    assert f'value "{evil}"' in err, err
    assert not Path("/tmp/abs-escape").exists()


@pytest.mark.parametrize("evil", EVIL)
@pytest.mark.parametrize("key", ["scenario", "flow", "traffic"])
def test_labels_never_reach_a_file_name(key: str, evil: str, tmp_path: Path) -> None:
    # Labels may hold any printable text: they run, and write only under --out.
    proc, created = run_in_sandbox(tmp_path, TEMPLATE.format(**{**SAFE, key: evil}))
    assert proc.returncode == 0, proc.stderr
    assert created == set(), f"{evil!r} as {key} created {created}"
    # The same files as with plain names: no label is part of a file name.
    safe, _ = run_in_sandbox(tmp_path / "safe", TEMPLATE.format(**SAFE))
    assert safe.returncode == 0
    names = {p.name for p in (tmp_path / "box/inner/out").iterdir()}
    assert names == {p.name for p in (tmp_path / "safe/box/inner/out").iterdir()}


def test_a_symlinked_out_is_written_through_only_where_it_points(tmp_path: Path) -> None:
    # --out itself is the user's choice; the files go under it, wherever it is.
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    os.symlink(real, link)
    scenario = tmp_path / "s.toml"
    scenario.write_text(TEMPLATE.format(**SAFE))
    proc = run_cli("run", str(scenario), "--out", str(link), "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (real / "capture_a_r.pcap").is_file()
