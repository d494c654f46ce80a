"""The ``tcplab`` command line: exit codes and messages, never a traceback."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import TWO_HOSTS, fake_raw, run_cli

BROKEN_TOML = '[[flows]\nname = "unterminated\n'


def assert_user_error(proc: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert proc.returncode == 2, proc
    assert proc.stderr.startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    for fragment in fragments:
        assert fragment in proc.stderr


def test_list_exits_0() -> None:
    proc = run_cli("list")
    assert proc.returncode == 0, proc.stderr
    for title in ("congestion controllers", "queue disciplines", "host profiles"):
        assert title in proc.stdout


def test_no_command_prints_help_and_exits_0() -> None:
    proc = run_cli()
    assert proc.returncode == 0, proc.stderr
    assert "Usage:" in proc.stdout
    assert "run" in proc.stdout


def test_version_is_the_package_version() -> None:
    import tcplab

    proc = run_cli("--version")
    assert proc.returncode == 0
    assert tcplab.__version__ in proc.stdout


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "tcplab"
    assert script.exists(), f"{script} missing: is the package installed (make install)?"
    proc = subprocess.run(
        [str(script), "--help"], capture_output=True, text=True, check=False, timeout=60
    )
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("command", ["validate", "run"])
def test_missing_file_exits_2_naming_the_path(command: str, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-scenario.toml"
    proc = run_cli(command, str(missing), cwd=tmp_path)
    assert_user_error(proc, str(missing), "No such file")


def test_directory_as_scenario_exits_2(tmp_path: Path) -> None:
    assert_user_error(run_cli("validate", str(tmp_path)), str(tmp_path))


def test_non_utf8_scenario_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b'name = "caf\xe9"\n')
    assert_user_error(run_cli("validate", str(bad)), str(bad), "UTF-8")


SMALL = 'duration = "1s"\n' + TWO_HOSTS + '[[flow]]\nfrom = "a"\nto = "b"\n'


@pytest.mark.parametrize("command", ["validate", "run", "sweep"])
def test_a_fifo_is_refused_at_once_not_waited_on(command: str, tmp_path: Path) -> None:
    # Opening a FIFO for reading blocks until a writer comes: none will.
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    proc = run_cli(command, str(fifo), cwd=tmp_path)
    assert_user_error(proc, str(fifo), "is a FIFO (named pipe)", "must be a regular file")


@pytest.mark.parametrize("command", ["validate", "run", "sweep"])
def test_a_link_to_a_device_is_refused_before_reading(command: str, tmp_path: Path) -> None:
    # /dev/zero never ends: reading it whole would eat memory until MemoryError.
    link = tmp_path / "zero.toml"
    link.symlink_to("/dev/zero")
    proc = run_cli(command, str(link), cwd=tmp_path)
    assert_user_error(proc, str(link), "is a character device", "must be a regular file")


def test_a_scenario_larger_than_the_limit_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_text(SMALL + "#" * 5000 + "\n")
    proc = run_cli("validate", str(big), cwd=tmp_path, env={"TCPLAB_MAX_SCENARIO_BYTES": "4096"})
    size = big.stat().st_size
    assert_user_error(proc, str(big), f"{size} bytes", "at most 4096 bytes")
    assert run_cli("validate", str(big), cwd=tmp_path).returncode == 0


def test_the_default_limit_holds_a_million_flows() -> None:
    import tcplab

    one_flow = '[[flow]]\nfrom = "h1"\nto = "h2"\n'
    assert 10**6 * len(one_flow) < tcplab.MAX_SCENARIO_BYTES


@pytest.mark.parametrize("command", ["validate", "run", "sweep"])
def test_a_utf8_byte_order_mark_is_read_alike_by_every_command(
    command: str, tmp_path: Path
) -> None:
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbf" + (SMALL + '[sweep]\n"link[0].rate" = ["1Mbps"]\n').encode())
    args = [command, str(bom)] + ([] if command == "validate" else ["--out", str(tmp_path / "o")])
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("command", ["validate", "run"])
def test_broken_toml_exits_2_without_traceback(command: str, tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text(BROKEN_TOML)
    proc = run_cli(command, str(broken), cwd=tmp_path)
    assert_user_error(proc, str(broken))
    assert not (tmp_path / "out").exists(), "nothing is written for a scenario that fails"


@pytest.mark.parametrize("seed", ["-1", "abc", str(2**64), "1.5"])
def test_bad_seed_exits_2(seed: str, tmp_path: Path) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text('name = "s"\n')
    assert_user_error(run_cli("run", str(scenario), "--seed", seed), "--seed")


def test_unknown_option_exits_2() -> None:
    assert_user_error(run_cli("run", "--frobnicate"), "--frobnicate")


def test_unknown_command_exits_2() -> None:
    assert_user_error(run_cli("frobnicate"), "frobnicate")


def test_bench_missing_scenario_exits_2(tmp_path: Path) -> None:
    assert_user_error(run_cli("bench", "nope.toml", "--repeat", "1", cwd=tmp_path), "nope.toml")


def test_bench_repeat_must_be_positive(tmp_path: Path) -> None:
    assert_user_error(run_cli("bench", "x.toml", "--repeat", "0", cwd=tmp_path), "--repeat")


def test_unexpected_exception_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tcplab import _core, cli

    def boom() -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(_core, "catalog", boom)
    monkeypatch.delenv(cli.TRACEBACK_ENV, raising=False)
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["list"])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("internal error: RuntimeError: kaboom")
    assert "report" in err
    assert "Traceback" not in err


def test_importing_the_cli_loads_no_heavy_library() -> None:
    """`tcplab` must start fast: polars, numpy and rich load only when used."""
    code = (
        "import sys, tcplab.cli; "
        "print(sorted(m for m in ('polars', 'numpy', 'rich') if m in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert proc.stdout.strip() == "[]"


@pytest.fixture
def fake_core(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, int | None]]:
    """Replace the core's run with one returning ``fake_raw()``; returns the
    list of calls it received."""
    from tcplab import _core

    calls: list[tuple[str, str, int | None]] = []

    def fake_run(
        text: str,
        path: str,
        seed: int | None = None,
        before_run: Any = None,
        progress: Any = None,
        *,
        arrays: bool = True,
    ) -> dict[str, Any]:
        calls.append((text, path, seed))
        return fake_raw()

    monkeypatch.setattr(_core, "run", fake_run)
    return calls


def main_exit_code(*args: str) -> int | str | None:
    from tcplab import cli

    with pytest.raises(SystemExit) as exit_info:
        cli.main(list(args))
    return exit_info.value.code


def test_run_prints_the_summary_and_writes_results(
    fake_core: list[tuple[str, str, int | None]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text('name = "s"\n')
    assert main_exit_code("run", "s.toml", "--seed", "42") == 0
    assert fake_core == [('name = "s"\n', "s.toml", 42)]
    out = capsys.readouterr().out
    for expected in ("alpha", "a->c", "r1->r2", "10 Mb/s", "1,000 events", "out/s"):
        assert expected in out
    assert (tmp_path / "out" / "s" / "summary.json").is_file()


def test_run_quiet_prints_nothing(
    fake_core: list[tuple[str, str, int | None]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text('name = "s"\n')
    assert main_exit_code("run", str(scenario), "--out", str(tmp_path / "r"), "-q") == 0
    assert capsys.readouterr().out == ""
    assert (tmp_path / "r" / "flows.parquet").is_file()


def test_run_imports_neither_numpy_nor_polars(tmp_path: Path) -> None:
    # numpy's import alone is most of a short run's time: the core hands the
    # traces to `tcplab run` as its own columns and writes every table itself.
    scenario = Path(__file__).parents[1] / "scenarios/braud2016/long-newreno.toml"
    out = tmp_path / "r"
    code = (
        "import sys\n"
        "from tcplab import cli\n"
        f"cli.cli.main(['run', {str(scenario)!r}, '--out', {str(out)!r}], standalone_mode=False)\n"
        "print(sorted(m for m in ('numpy', 'polars') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"
    assert (out / "trace_cwnd.parquet").is_file()
    assert (out / "trace_queue.parquet").is_file()


def test_run_into_an_unwritable_place_exits_2(
    fake_core: list[tuple[str, str, int | None]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text('name = "s"\n')
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main_exit_code("run", str(scenario), "--out", str(blocker / "sub")) == 2
    assert capsys.readouterr().err.startswith(f"error: cannot write results to {blocker}")


def test_bench_reports_each_run(
    fake_core: list[tuple[str, str, int | None]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text('name = "s"\n')
    assert main_exit_code("bench", str(scenario), "--repeat", "2") == 0
    assert len(fake_core) == 2
    out = capsys.readouterr().out
    assert "events/s" in out
    assert "median" in out


def test_ctrl_c_stops_a_running_simulation_at_once(tmp_path: Path) -> None:
    # Regression: importing polars (preloaded during the run) installs its own
    # SIGINT handler, and Ctrl-C then let the simulation run to its end.
    import os
    import signal
    import subprocess
    import sys
    import time

    long_run = tmp_path / "long.toml"
    long_run.write_text(
        'duration = "100000s"\n[[host]]\nname = "a"\n[[host]]\nname = "b"\n'
        '[[link]]\nbetween = ["a", "b"]\nrate = "100Mbps"\ndelay = "1ms"\n'
        '[[flow]]\nfrom = "a"\nto = "b"\n',
        encoding="utf-8",
    )
    cmd = [sys.executable, "-m", "tcplab", "run", str(long_run), "--out", str(tmp_path / "o")]
    with subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as proc:
        try:
            time.sleep(2.0)  # the preload of polars is over
            assert proc.poll() is None
            t0 = time.monotonic()
            os.kill(proc.pid, signal.SIGINT)
            proc.wait(timeout=10)
            assert time.monotonic() - t0 < 2
            assert proc.returncode != 0
        finally:
            proc.kill()  # a simulation that ignored Ctrl-C would run for hours


SWEEP_BASE = """
name = "tiny"
duration = "2s"
[[host]]
name = "a"
[[host]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "5ms"
[[flow]]
name = "f"
from = "a"
to = "b"
"""


@pytest.mark.parametrize(
    ("sweep", "says"),
    [
        # A point whose value the core refuses: named with the line of the axis.
        (
            '[sweep]\n"host[a].sndbuf" = ["64KiB", "-5"]\n',
            ["s.toml, line 18 (sweep point host[a].sndbuf = '-5')", "host[0].sndbuf", "-5"],
        ),
        ('[sweep]\n"host[a].nosuchfield" = [1, 2]\n', ["line 18", "nosuchfield"]),
        ('[sweep]\n"host[a].cc" = []\n', ["sweep.host[a].cc", "non-empty list"]),
        (
            '[sweep]\nmode = "zip"\n"host[a].cc" = ["cubic"]\n"host[b].cc" = ["cubic", "reno"]\n',
            ["sweep.mode", "equal lengths"],
        ),
        ('[sweep]\nmode = "diagonal"\n"host[a].cc" = ["cubic"]\n', ["sweep.mode", "diagonal"]),
        ("repetitions = 0\n", ["repetitions", "whole number >= 1"]),
    ],
)
def test_validate_checks_every_sweep_point_and_the_sweep_itself(
    sweep: str, says: list[str], tmp_path: Path
) -> None:
    # Line 18 of the file: the base's 16 lines, an empty line, [sweep], the axis.
    f = tmp_path / "s.toml"
    if sweep.startswith("repetitions"):
        f.write_text(sweep + SWEEP_BASE)
    else:
        f.write_text(SWEEP_BASE + "\n" + sweep)
    assert_user_error(run_cli("validate", str(f)), str(f), *says)


def test_validate_counts_the_points_of_a_good_sweep(tmp_path: Path) -> None:
    f = tmp_path / "s.toml"
    f.write_text("repetitions = 3\n" + SWEEP_BASE + '\n[sweep]\n"host[a].cc" = ["cubic", "reno"]\n')
    proc = run_cli("validate", str(f))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok: tiny (sweep: 2 points x 3 repetition(s))")


def test_run_on_a_sweep_file_says_it_runs_the_base_scenario(tmp_path: Path) -> None:
    f = tmp_path / "s.toml"
    f.write_text(SWEEP_BASE + '\n[sweep]\n"host[a].cc" = ["cubic", "reno"]\n')
    proc = run_cli("run", str(f), "--quiet", "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "runs its base scenario once" in proc.stderr
    assert f"tcplab sweep {f}" in proc.stderr


def test_run_shows_the_throughput_of_finite_transfers(tmp_path: Path) -> None:
    f = tmp_path / "t.toml"
    f.write_text(SWEEP_BASE + 'size = "100KB"\n')
    proc = run_cli("run", str(f), "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    # (Headers may be squeezed at a narrow terminal: "trans…"; FCT s is short.)
    assert "FCT s" in proc.stdout
    import polars as pl

    row = pl.read_parquet(tmp_path / "o" / "flows.parquet").row(0, named=True)
    # 100 KB over the completion time, in Mb/s, as printed.
    assert row["completed"]
    assert f"{100_000 * 8 / row['fct_s'] / 1e6:.3f}" in proc.stdout
    assert f"{row['fct_s']:.3f}" in proc.stdout
    # A bulk flow: no such columns.
    f.write_text(SWEEP_BASE)
    proc = run_cli("run", str(f), "--out", str(tmp_path / "o2"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "FCT s" not in proc.stdout


def _flows_scenario(tmp_path: Path, n: int) -> Path:
    text = (
        'duration = "1s"\n[[host]]\nname = "a"\n[[host]]\nname = "b"\n'
        '[[link]]\nbetween = ["a", "b"]\nrate = "1Gbps"\ndelay = "1ms"\n'
        "queue = { packets = 100 }\n"
    )
    text += "".join(f'[[flow]]\nname = "f{i}"\nfrom = "a"\nto = "b"\n' for i in range(n))
    p = tmp_path / "many.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_a_run_the_machine_cannot_hold_is_refused_up_front(tmp_path: Path) -> None:
    from tcplab import _core, memory

    p = _flows_scenario(tmp_path, 200)
    need = int(_core.validate(p.read_text(encoding="utf-8"), str(p))["memory_bytes"])
    # The estimate grows with the flows: 200 flows of some kilobytes each.
    assert need > 200 * 2_000
    # Pretend the machine has less than one run needs (and less than 4 runs).
    with pytest.raises(memory.MemoryCheckError) as e:
        memory.check(str(p), need, available=need - 1)
    assert str(e.value).startswith(f"{p}: a run needs about")
    assert "TCPLAB_MEMORY_CHECK=0" in str(e.value)
    with pytest.raises(memory.MemoryCheckError, match="4 runs at once"):
        memory.check(str(p), need, jobs=4, available=3 * need)
    memory.check(str(p), need, jobs=4, available=4 * need)


@pytest.mark.parametrize("command", ["run", "validate", "sweep"])
def test_cli_refuses_an_oversized_scenario_with_a_clear_error(tmp_path: Path, command: str) -> None:
    # A machine with 100 kB to spare (TCPLAB_MEMORY_LIMIT) cannot hold a run.
    p = _flows_scenario(tmp_path, 3)
    if command == "sweep":
        p.write_text(p.read_text() + '[sweep]\n"link[0].delay" = ["1ms", "2ms"]\n')
    r = run_cli(command, str(p), env={"TCPLAB_MEMORY_LIMIT": "100000"})
    assert_user_error(r, str(p), "of memory", "this machine has 0 MB available")
    # With the check off it goes ahead.
    out = [] if command == "validate" else ["--out", str(tmp_path / "o")]
    r = run_cli(
        command, str(p), *out, env={"TCPLAB_MEMORY_CHECK": "0", "TCPLAB_MEMORY_LIMIT": "100000"}
    )
    assert r.returncode == 0, r.stderr


def test_the_printed_flows_table_stops_at_40_rows_and_says_where_the_rest_are(
    tmp_path: Path,
) -> None:
    # A million flows must not print a million lines; the files hold them all.
    p = _flows_scenario(tmp_path, 45)
    proc = run_cli("run", str(p), "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    shown = {f"f{i}" for i in range(45) if re.search(rf"^\s*f{i}\s", proc.stdout, re.M)}
    assert shown == {f"f{i}" for i in range(40)}
    assert "the first 40 flows of 45: all in flows.parquet" in proc.stdout
    assert "links of" not in proc.stdout  # two links: all shown
    import polars as pl

    assert pl.read_parquet(tmp_path / "o" / "flows.parquet").height == 45
