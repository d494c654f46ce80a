"""What tcplab writes (issue 22): every file stays under the output
directory whatever the names in the input; a run's directory appears whole or
not at all, a full disk included, and an earlier run survives a failed one;
a damaged result file is named by whatever reads it, and ``--resume`` runs
its run again."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tcplab import sweep
from tcplab.cli import main
from tcplab.report import ReportError, report_dir
from tcplab.reproduce import export
from tcplab.results import (
    ResultFileError,
    Results,
    UnsafePathError,
    inside,
    parquet_damage,
    read_parquet,
)

from conftest import TWO_HOSTS, fake_raw

# A small, fast scenario whose results depend on the seed (random loss).
SCENARIO = (
    'name = "out"\nseed = 3\nduration = "2s"\n'
    + TWO_HOSTS
    + "queue = { packets = 50 }\nloss = { rate = 0.002 }\n"
    + '[[flow]]\nname = "f"\nfrom = "a"\nto = "b"\n'
)
SWEEP = "repetitions = 2\n" + SCENARIO + '[sweep]\n"link[0].queue.packets" = [20, 50]\n'


def exit_code(*args: str) -> int | str | None:
    with pytest.raises(SystemExit) as e:
        main(list(args))
    return e.value.code


def files_under(d: Path) -> dict[str, bytes]:
    """Every file under ``d`` (relative path -> bytes); symbolic links as
    their target's text."""
    out: dict[str, bytes] = {}
    for p in sorted(d.rglob("*")):
        if p.is_symlink():
            out[str(p.relative_to(d))] = os.readlink(p).encode()
        elif p.is_file():
            out[str(p.relative_to(d))] = p.read_bytes()
    return out


def load_sweep(p: Path) -> sweep.Sweep:
    return sweep.load_sweep(p.read_text(encoding="utf-8"), str(p))


def flows(out: Path) -> pl.DataFrame:
    return pl.read_parquet(out / "flows.parquet").drop("wall_s", strict=False)


# ------------------------------------------------------------ inside --out


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("..", "names a directory"),
        (".", "names a directory"),
        ("", "an empty name"),
        ("../x", "path separator"),
        ("a/../../x", "path separator"),
        ("/etc/passwd", "path separator"),
        ("..\\x", "path separator"),
        ("x\0y", "NUL byte"),
    ],
)
def test_inside_refuses_a_name_that_leaves_the_directory(
    tmp_path: Path, name: str, why: str
) -> None:
    with pytest.raises(UnsafePathError) as e:
        inside(tmp_path / "out", name)
    msg = str(e.value.strerror)
    assert f"refusing to write {name!r} under {tmp_path / 'out'}" in msg, msg
    assert why in msg, msg
    assert e.value.errno == errno.EINVAL


def test_inside_follows_symbolic_links_already_there(tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    (out / "sub").mkdir(parents=True)
    elsewhere.mkdir()
    (out / "away").symlink_to(elsewhere)
    (out / "here").symlink_to(out / "sub")
    with pytest.raises(UnsafePathError, match=r"leads to .*elsewhere.* through a symbolic link"):
        inside(out, "away", "x.parquet")
    with pytest.raises(UnsafePathError, match=r"through a symbolic link"):
        inside(out, "away")
    assert inside(out, "here", "x.parquet") == out / "here" / "x.parquet"
    assert inside(out, "new", "x.parquet") == out / "new" / "x.parquet"
    # The output directory itself may be a link: the user chose it.
    (tmp_path / "link-to-out").symlink_to(out)
    assert inside(tmp_path / "link-to-out", "x") == tmp_path / "link-to-out" / "x"


# Every name from the input that reaches a file name, each crafted to leave
# --out: a link's name (a capture file, from host and router names), a
# trace's name (from the core's results), a file of a sweep's run.
BAD_LINKS = ["../../escaped->r", "/tmp/escaped->r", "a/../../escaped->r", "x\0y->r", "..\\x->r"]


@pytest.mark.parametrize("link", BAD_LINKS)
def test_a_capture_named_out_of_the_directory_is_refused(tmp_path: Path, link: str) -> None:
    raw = fake_raw()
    raw["pcap"] = {"ok->r": b"\xd4\xc3\xb2\xa1", link: b"\xd4\xc3\xb2\xa1"}
    out = tmp_path / "a" / "b" / "out"
    with pytest.raises(UnsafePathError) as e:
        Results(raw).write(out)
    assert repr(f"capture_{link.replace('->', '_')}.pcap") in str(e.value), e.value
    assert str(out) in str(e.value)
    assert files_under(tmp_path) == {}, "nothing written anywhere"


@pytest.mark.parametrize("name", ["../../escaped", "/tmp/escaped", "x\0y"])
def test_a_trace_named_out_of_the_directory_is_refused(tmp_path: Path, name: str) -> None:
    raw = fake_raw()
    raw["traces"][name] = raw["traces"].pop("rtt")
    out = tmp_path / "a" / "out"
    Results(fake_raw()).write(out)
    before = files_under(tmp_path)
    with pytest.raises(UnsafePathError, match=r"refusing to write 'trace_"):
        Results(raw).write(out)
    assert files_under(tmp_path) == before, "the earlier run is untouched"


def test_an_extra_file_named_out_of_the_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UnsafePathError, match=r"refusing to write '\.\./run\.json'"):
        Results(fake_raw()).write(tmp_path / "out", extra_files={"../run.json": "{}"})
    assert files_under(tmp_path) == {}


def test_a_link_planted_in_the_directory_is_not_written_through(tmp_path: Path) -> None:
    out, victim = tmp_path / "out", tmp_path / "victim.txt"
    Results(fake_raw()).write(out)
    victim.write_text("precious")
    (out / "flows.parquet").unlink()
    (out / "flows.parquet").symlink_to(victim)
    before = files_under(tmp_path)
    with pytest.raises(UnsafePathError, match=r"'flows\.parquet'.*victim\.txt"):
        Results(fake_raw()).write(out)
    assert files_under(tmp_path) == before


def test_the_core_s_names_cannot_lead_a_capture_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A host named to climb out of --out, its link captured. The core may
    # refuse the name itself; either way nothing is written outside.
    host = "../../../escaped"
    text = f"""
duration = "1s"
[trace]
pcap = ["{host}->b"]
[[host]]
name = "{host}"
[[host]]
name = "b"
[[link]]
between = ["{host}", "b"]
rate = "10Mbps"
[[flow]]
from = "{host}"
to = "b"
"""
    p = tmp_path / "s" / "t.toml"
    p.parent.mkdir()
    p.write_text(text)
    out = tmp_path / "s" / "o" / "x" / "y"
    assert exit_code("run", str(p), "--out", str(out), "-q") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: "), err
    assert host in err, err
    assert "internal error" not in err
    assert [q.name for q in tmp_path.rglob("*escaped*")] == []
    assert not out.exists()


def test_a_sweep_does_not_write_or_delete_through_a_planted_runs_link(tmp_path: Path) -> None:
    p = tmp_path / "s.toml"
    p.write_text(SWEEP)
    out, elsewhere = tmp_path / "o", tmp_path / "elsewhere"
    (elsewhere / "keep").mkdir(parents=True)
    (elsewhere / "keep" / "precious.txt").write_text("x")
    out.mkdir()
    (out / "runs").symlink_to(elsewhere)
    for resume in (False, True):
        with pytest.raises(UnsafePathError, match=r"'runs'.*elsewhere"):
            sweep.run_sweep(load_sweep(p), out, jobs=1, resume=resume)
        assert files_under(elsewhere) == {"keep/precious.txt": b"x"}


def test_a_failed_run_is_not_written_through_a_planted_link(tmp_path: Path) -> None:
    p = tmp_path / "s.toml"
    p.write_text(SWEEP)
    sw = load_sweep(p)
    out, elsewhere = tmp_path / "o", tmp_path / "elsewhere"
    elsewhere.mkdir()
    out.mkdir()
    (out / "failed").symlink_to(elsewhere)
    task = sw.task(0, 0)
    with pytest.raises(UnsafePathError, match=r"'failed'"):
        sweep._write_run(out, sw, task, {"ok": False, "error": "boom", "wall_s": 0.0})
    assert files_under(elsewhere) == {}


def test_collect_and_report_do_not_write_through_planted_links(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = tmp_path / "s.toml"
    p.write_text(SWEEP)
    out = sweep.run_sweep(load_sweep(p), tmp_path / "o", jobs=1)
    victim = tmp_path / "victim"
    victim.write_text("precious")
    for name in ("links.parquet", "flows.csv"):
        (out / name).unlink(missing_ok=True)
        (out / name).symlink_to(victim)
        with pytest.raises(UnsafePathError, match=rf"'{name}'.*victim"):
            sweep.collect(out, csv=True)
        (out / name).unlink()
    (out / "report.html").symlink_to(victim)
    assert exit_code("report", str(out)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: cannot write the report to {out}: refusing to write"), err
    assert victim.read_text() == "precious"


def test_export_does_not_write_through_a_planted_link(tmp_path: Path) -> None:
    from tcplab.studies import STUDIES

    name = next(iter(STUDIES))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "dest").mkdir()
    (tmp_path / "dest" / name).symlink_to(elsewhere)
    with pytest.raises(UnsafePathError, match=rf"'{name}'.*elsewhere"):
        export(name, tmp_path / "dest")
    assert files_under(elsewhere) == {}


def test_a_default_out_named_after_a_file_called_dot_dot_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # "...toml" has the stem "..": out/.. is the current directory, whose
    # runs/ a sweep without --resume would have removed.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "precious.txt").write_text("x")
    (tmp_path / "...toml").write_text(SWEEP)
    for command in ("sweep", "run"):
        assert exit_code(command, "...toml", "-q") == 2
        err = capsys.readouterr().err
        assert "refusing to write '..' under out" in err, err
        assert "give --out DIR" in err, err
    assert files_under(tmp_path / "runs") == {"precious.txt": b"x"}


# ------------------------------------------------------------ whole runs


@contextlib.contextmanager
def tiny_disk(path: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted on ``path`` (root only); skips the test
    where it cannot be mounted."""
    path.mkdir(parents=True, exist_ok=True)
    if os.name != "posix" or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", str(path)], check=True)


def big_raw(rows: int) -> dict[str, Any]:
    """Results whose cwnd trace takes about ``rows`` x 40 bytes of Parquet."""
    import numpy as np

    raw = fake_raw(trace_rows=rows)
    rng = np.random.default_rng(1)  # incompressible values
    raw["traces"]["cwnd"]["srtt_s"] = rng.random(rows)
    raw["traces"]["cwnd"]["time_s"] = rng.random(rows)
    return raw


def test_a_full_disk_leaves_the_earlier_run_whole(tmp_path: Path) -> None:
    with tiny_disk(tmp_path / "disk", "512k") as disk:
        out = disk / "run"
        Results(fake_raw()).write(out)
        before = files_under(disk)
        with pytest.raises(OSError, match="No space left on device") as e:
            Results(big_raw(200_000)).write(out)
        assert e.value.errno == errno.ENOSPC, e.value
        assert files_under(disk) == before, "the earlier run is untouched, no temporary left"
        # A new directory: nothing at all.
        with pytest.raises(OSError, match="No space left on device"):
            Results(big_raw(200_000)).write(disk / "new")
        assert sorted(q.name for q in disk.iterdir()) == ["run"]


def test_a_full_disk_during_tcplab_run_is_a_user_error_and_leaves_no_half_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = tmp_path / "s.toml"
    # About 210 KB of results (a 1 ms queue trace besides cwnd's) for 64 KB.
    trace = '[trace]\ncwnd = true\nqueue = true\ninterval = "1ms"\n'
    p.write_text(SCENARIO.replace('duration = "2s"', 'duration = "30s"') + trace)
    with tiny_disk(tmp_path / "disk", "64k") as disk:
        assert exit_code("run", str(p), "--out", str(disk / "o"), "-q") == 2
        err = capsys.readouterr().err
        assert err == f"error: cannot write results to {disk / 'o'}: No space left on device\n"
        assert list(disk.iterdir()) == []


def test_polars_reporting_a_full_disk_is_an_os_error_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # What polars raises for ENOSPC (its own exception, not an OSError): the
    # message of write_parquet on a full tmpfs, polars 1.x.
    def full(self: pl.DataFrame, file: Any, *args: Any, **kwargs: Any) -> None:
        Path(file).write_bytes(b"PAR1 half")
        raise pl.exceptions.ComputeError(
            "parquet: File out of specification: underlying IO error: "
            "No space left on device (os error 28)"
        )

    Results(fake_raw()).write(tmp_path / "o")
    before = files_under(tmp_path)
    monkeypatch.setattr(pl.DataFrame, "write_parquet", full)
    res = Results(fake_raw())
    assert res.flows.height > 0  # built, so written by polars (not by the core)
    with pytest.raises(OSError, match="No space left on device") as e:
        res.write(tmp_path / "o")
    assert e.value.errno == errno.ENOSPC
    assert e.value.strerror == os.strerror(errno.ENOSPC)
    assert Path(e.value.filename).name == "flows.parquet"
    assert files_under(tmp_path) == before

    # `tcplab run` writes its tables with the core: the disk fills under it.
    real_bytes = Path.write_bytes

    def full_bytes(self: Path, data: bytes) -> int:
        if self.suffix == ".parquet":
            real_bytes(self, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return real_bytes(self, data)

    monkeypatch.setattr(Path, "write_bytes", full_bytes)
    p = tmp_path / "s.toml"
    p.write_text(SCENARIO)
    assert exit_code("run", str(p), "--out", str(tmp_path / "o"), "-q") == 2
    err = capsys.readouterr().err
    assert err == f"error: cannot write results to {tmp_path / 'o'}: No space left on device\n"
    assert files_under(tmp_path) == {**before, "s.toml": SCENARIO.encode()}


def test_a_sweep_that_fills_the_disk_keeps_its_finished_runs_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    p = tmp_path / "s.toml"
    p.write_text(SWEEP)
    real = Results._write_files
    calls = 0

    def third_fills_the_disk(self: Results, d: Path, out: Path, extra: Any) -> None:
        nonlocal calls
        calls += 1
        real(self, d, out, extra)
        if calls == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(d / "flows.parquet"))

    monkeypatch.setattr(Results, "_write_files", third_fills_the_disk)
    out = tmp_path / "o"
    assert exit_code("sweep", str(p), "--out", str(out), "-j", "1", "-q") == 2
    err = capsys.readouterr().err
    assert err == f"error: cannot write results to {out}: No space left on device\n"
    kept = sweep.done_runs(out)
    assert len(kept) == 2
    assert [q.name for q in (out / "runs").iterdir() if q.name.startswith(".")] == []
    for rid in kept:
        assert sweep.run_damage(out / "runs" / rid) is None
    monkeypatch.undo()
    sweep.run_sweep(load_sweep(p), out, jobs=1, resume=True)
    assert flows(out).equals(flows(sweep.run_sweep(load_sweep(p), tmp_path / "clean", jobs=1)))


def test_a_sweep_on_a_really_full_disk_keeps_whole_runs_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = tmp_path / "s.toml"
    # About 440 KB of runs (traces every 100 us) for 300 KB.
    trace = '[trace]\ncwnd = true\nqueue = true\ninterval = "100us"\n'
    p.write_text(SWEEP.replace("[[host]]", trace + "[[host]]", 1))
    with tiny_disk(tmp_path / "disk", "300k") as disk:
        out = disk / "o"
        assert exit_code("sweep", str(p), "--out", str(out), "-j", "1", "-q") == 2
        err = capsys.readouterr().err
        assert err == f"error: cannot write results to {out}: No space left on device\n", err
        runs = sorted((out / "runs").iterdir()) if (out / "runs").exists() else []
        assert all(not q.name.startswith(".") for q in runs), runs
        for run in runs:
            assert sweep.run_damage(run) is None


# --------------------------------------------------------- damaged files


def whole_parquet(tmp_path: Path) -> Path:
    path = tmp_path / "t.parquet"
    pl.DataFrame({"x": [1.0, 2.0, 3.0]}).write_parquet(path)
    return path


def test_parquet_damage_by_hand(tmp_path: Path) -> None:
    good = whole_parquet(tmp_path)
    data = good.read_bytes()
    assert data[:4] == data[-4:] == b"PAR1"  # the format's magic, both ends
    assert parquet_damage(good) is None
    cases = {
        "truncated": (data[:-1], "does not end with the Parquet magic bytes PAR1"),
        "half": (data[: len(data) // 2], "does not end with the Parquet magic bytes PAR1"),
        "empty": (b"", "0 bytes, too short"),
        "text": (b"flows,links\n1,2\n", "does not start with the Parquet magic bytes"),
        # The footer length (4 bytes before the last magic) claims more than the file.
        "footer": (data[:-8] + (10**6).to_bytes(4, "little") + b"PAR1", "its footer claims"),
        # The footer's bytes replaced: the schema does not parse.
        "garbled": (
            data[:4] + b"\0" * (len(data) - 12) + data[-8:],
            "its footer does not parse",
        ),
    }
    for name, (content, why) in cases.items():
        bad = tmp_path / f"{name}.parquet"
        bad.write_bytes(content)
        got = parquet_damage(bad)
        assert got is not None, name
        assert why in got, (name, got)
        with pytest.raises(ResultFileError) as e:
            read_parquet(bad)
        assert str(e.value).startswith(f"{bad}: not a readable Parquet file: "), e.value


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-5])


def test_resume_runs_a_run_with_a_truncated_table_again(tmp_path: Path) -> None:
    p = tmp_path / "s.toml"
    p.write_text(SWEEP)
    out = sweep.run_sweep(load_sweep(p), tmp_path / "o", jobs=1)
    ids = sorted(sweep.done_runs(out))
    truncate(out / "runs" / ids[1] / "links.parquet")
    (out / "runs" / ids[2] / "run.json").write_text("{")
    notes: list[str] = []
    sweep.run_sweep(load_sweep(p), out, jobs=1, resume=True, on_note=notes.append)
    assert notes == [
        f"{out / 'runs' / ids[1]}: links.parquet does not end with the Parquet magic bytes "
        "PAR1 (truncated?): running it again",
        f"{out / 'runs' / ids[2]}: run.json cannot be read (Expecting property name enclosed "
        "in double quotes: line 1 column 2 (char 1)): running it again",
    ]
    assert sorted(sweep.done_runs(out)) == ids
    for rid in ids:
        assert sweep.run_damage(out / "runs" / rid) is None
    clean = sweep.run_sweep(load_sweep(p), tmp_path / "clean", jobs=1)
    assert flows(out).equals(flows(clean))
    assert (
        pl.read_parquet(out / "links.parquet")
        .drop("wall_s", strict=False)
        .equals(pl.read_parquet(clean / "links.parquet").drop("wall_s", strict=False))
    )


def test_resume_says_so_on_stderr_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = tmp_path / "s.toml"
    p.write_text(SWEEP)
    out = sweep.run_sweep(load_sweep(p), tmp_path / "o", jobs=1)
    rid = sorted(sweep.done_runs(out))[0]
    (out / "runs" / rid / "flows.parquet").unlink()
    assert exit_code("sweep", str(p), "--out", str(out), "--resume", "-q") == 0
    err = capsys.readouterr().err
    assert f"note: {out / 'runs' / rid}: flows.parquet is missing: running it again" in err


def test_readers_name_the_damaged_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "s.toml"
    p.write_text(SWEEP)
    out = sweep.run_sweep(load_sweep(p), tmp_path / "o", jobs=1)
    rid = sorted(sweep.done_runs(out))[1]
    bad = out / "runs" / rid / "flows.parquet"
    truncate(bad)
    expected = (
        f"{bad}: not a readable Parquet file: does not end with the Parquet magic bytes "
        "PAR1 (truncated?); run the sweep again with --resume to redo that run"
    )
    for call in (
        lambda: sweep.read_table(out, "flows"),
        lambda: sweep.summarize(out, "flows"),
        lambda: sweep.collect(out),
    ):
        with pytest.raises(ResultFileError) as e:
            call()
        assert str(e.value) == expected
    with pytest.raises(ReportError) as r:
        report_dir(out)
    assert str(r.value) == expected
    for args in (["summarize", str(out)], ["report", str(out)]):
        assert exit_code(*args) == 2
        assert capsys.readouterr().err == f"error: {expected}\n"
    # A run's own directory (tcplab run --out).
    run = tmp_path / "run"
    Results(fake_raw()).write(run)
    truncate(run / "links.parquet")
    assert exit_code("report", str(run)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {run / 'links.parquet'}: not a readable Parquet file: "), err
    # A damaged run.json, a damaged failure record.
    (out / "runs" / rid / "run.json").write_text("")
    assert exit_code("summarize", str(out)) == 2
    assert capsys.readouterr().err.startswith(f"error: {out / 'runs' / rid / 'run.json'}: ")
    (out / "failed").mkdir()
    (out / "failed" / "x.json").write_text("[")
    with pytest.raises(ResultFileError, match=rf"{out / 'failed' / 'x.json'}: cannot be read"):
        sweep.failures(out)


def test_a_summary_json_that_is_not_json_is_named(tmp_path: Path) -> None:
    run = tmp_path / "run"
    Results(fake_raw()).write(run)
    (run / "summary.json").write_text(json.dumps({"meta": {}})[:-3])
    with pytest.raises(ReportError, match=rf"{run / 'summary.json'}: cannot be read"):
        report_dir(run)


def test_temporaries_left_by_a_killed_writer_are_removed_by_the_next(tmp_path: Path) -> None:
    import sys

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    left = tmp_path / f".tcplab-tmp-run-{dead.pid}-0badc0de"  # killed while writing run/
    alive = tmp_path / f".tcplab-tmp-run-{os.getpid()}-0badc0de"  # being written right now
    other = tmp_path / f".tcplab-tmp-other-{dead.pid}-0badc0de"  # another target's
    for d in (left, alive, other):
        (d / "flows.parquet").parent.mkdir()
        (d / "flows.parquet").write_bytes(b"PAR1 half")
    Results(fake_raw()).write(tmp_path / "run")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["run", alive.name, other.name])


def test_resume_removes_the_temporary_directories_of_runs_cut_short(tmp_path: Path) -> None:
    p = tmp_path / "s.toml"
    p.write_text(SWEEP)
    out = sweep.run_sweep(load_sweep(p), tmp_path / "o", jobs=1)
    rid = sorted(sweep.done_runs(out))[0]
    cut = out / "runs" / f".tcplab-tmp-{rid}-999999-0badc0de"
    (out / "runs" / rid).rename(cut)  # as a sweep killed before the rename leaves it
    assert rid not in sweep.done_runs(out)
    sweep.run_sweep(load_sweep(p), out, jobs=1, resume=True)
    assert not cut.exists()
    assert rid in sweep.done_runs(out)
