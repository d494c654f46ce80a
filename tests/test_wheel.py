"""tcplab as a user installs it: the wheel built by maturin, installed with its
dependencies in a fresh virtual environment, runs a reproduction from a
directory that is not the checkout. This is what an editable install hides:
study files living outside the package, paths into the repository.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from html import unescape
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _maturin() -> str:
    exe = Path(sys.executable).parent / "maturin"
    found = str(exe) if exe.exists() else shutil.which("maturin")
    if found is None:
        pytest.fail("maturin is not installed (make install-dev installs it)")
    return found


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "TCPLAB_"))}
    env.pop("VIRTUAL_ENV", None)
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding the wheel; returns its bin directory."""
    tmp = tmp_path_factory.mktemp("wheel")
    wheels = tmp / "dist"
    subprocess.run(
        [_maturin(), "build", "--release", "--out", str(wheels)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        env=_clean_env(),
    )
    (wheel,) = wheels.glob("tcplab-*.whl")
    env_dir = tmp / "venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    r = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
        capture_output=True,
        text=True,
        env=_clean_env(),
        check=False,
    )
    assert r.returncode == 0, r.stderr
    return bin_dir


def test_the_wheel_carries_its_studies_and_reproduces_braud2016(
    installed: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "user"
    elsewhere.mkdir()
    env = _clean_env()
    where = subprocess.run(
        [str(installed / "python"), "-c", "import tcplab, sys; print(tcplab.__file__)"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout.strip()
    # The package imported is the installed one, not the checkout's sources.
    assert Path(where).is_relative_to(installed.parent), where
    listing = subprocess.run(
        [str(installed / "tcplab"), "reproduce", "--list"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert "braud2016" in listing
    assert "ALGOTEL" in listing
    r = subprocess.run(
        [str(installed / "tcplab"), "reproduce", "braud2016", "--quick", "--jobs", "2"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert r.returncode == 0, r.stderr + r.stdout
    report = elsewhere / "out" / "braud2016-quick" / "report.html"
    html = report.read_text(encoding="utf-8")
    assert "Braud" in html
    assert html.count("<figure") > 0
    _opens_with_the_paper_table(html, r.stdout, "B", 14)
    # Nothing points into a checkout or a paper file that no user has.
    assert "shared/papers" not in html
    assert str(ROOT) not in html


def _opens_with_the_paper_table(html: str, printed: str, letter: str, n: int) -> None:
    """The report's first section is the paper table, and the command prints
    it: every one of the paper's ``n`` published results (``letter``1 to
    ``letter``n), and the count of verdicts over all of them."""
    assert re.findall(r"<h2[^>]*>([^<]*)</h2>", html)[0] == "The paper&#39;s published results"
    for k in range(1, n + 1):
        assert re.search(rf"\b{letter}{k}\b", printed), f"{letter}{k} not printed"
        assert re.search(rf"\b{letter}{k}\b", html), f"{letter}{k} not in the report"
    counts = re.search(r"tcplab: (.*) \(of (\d+)\)", printed)
    assert counts is not None, printed
    assert counts.group(2) == str(n), printed


def _quick_report(installed: Path, tmp_path: Path, study: str) -> str:
    """``tcplab reproduce STUDY --quick`` from the wheel, outside the checkout:
    the report's HTML."""
    return _quick_run(installed, tmp_path, study)[0]


def _quick_run(installed: Path, tmp_path: Path, study: str) -> tuple[str, str]:
    """``tcplab reproduce STUDY --quick`` from the wheel, outside the checkout:
    the report's HTML and what the command printed."""
    r = subprocess.run(
        [str(installed / "tcplab"), "reproduce", study, "--quick", "--jobs", "2"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=_clean_env(),
        check=False,
    )
    assert r.returncode == 0, r.stderr + r.stdout
    html = (tmp_path / "out" / f"{study}-quick" / "report.html").read_text(encoding="utf-8")
    assert str(ROOT) not in html
    return html, r.stdout


def test_the_wheel_reproduces_barakat1999_with_its_models(installed: Path, tmp_path: Path) -> None:
    # The study's files and tcplab.models come with the wheel.
    html, printed = _quick_run(installed, tmp_path, "barakat1999")
    assert "RR-3620" in html
    assert html.count("<figure") == 7
    # The report opens with the paper table, which the command prints too:
    # each of the paper's 9 published results with a verdict, and the count.
    _opens_with_the_paper_table(html, printed, "K", 9)
    # Provenance from a wheel: the commit it was built from, and the study's
    # files by their place in the package, not the install directory.
    assert "(built)" in html
    assert "tcplab/studies/data/barakat1999/" in html


def test_the_wheel_reproduces_highspeed_fiber(installed: Path, tmp_path: Path) -> None:
    # A study whose name is not a module name (highspeed-fiber, module
    # highspeed_fiber) finds its files in the wheel.
    html, printed = _quick_run(installed, tmp_path, "highspeed-fiber")
    assert "Linux 2.2" in html
    assert html.count("<figure") >= 7
    _opens_with_the_paper_table(html, printed, "F", 14)


def test_the_wheel_reproduces_mascolo2006_with_its_paper_table(
    installed: Path, tmp_path: Path
) -> None:
    html, printed = _quick_run(installed, tmp_path, "mascolo2006")
    assert "PFLDnet" in html
    _opens_with_the_paper_table(html, printed, "M", 14)


def test_the_wheel_checks_the_ns2_profile_against_its_stored_ns2_runs(
    installed: Path, tmp_path: Path
) -> None:
    # ns-2.35's runs (CSV, Parquet, the Tcl scripts) come with the wheel: the
    # quick check pairs every simulated cell with a stored ns-2 cell.
    html = _quick_report(installed, tmp_path, "ns2-check")
    assert "ns-2.35" in html
    assert "flow-phase cells" in html
    assert "No run finished" not in html
    assert html.count("<figure") >= 1


def test_the_wheel_checks_the_linux_profile_against_its_stored_kernel_runs(
    installed: Path, tmp_path: Path
) -> None:
    # The kernel runs of linux-check's fqcodel part come with the wheel:
    # --sim-only needs no root and no kernel run, and every flow cell pairs.
    out = tmp_path / "lc"
    r = subprocess.run(
        [
            *(str(installed / "tcplab"), "reproduce", "linux-check", "--sim-only"),
            *("--part", "fqcodel", "--out", str(out), "--jobs", "2"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=_clean_env(),
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert "compared with the kernel runs stored in the package" in r.stdout
    html = unescape((out / "report.html").read_text(encoding="utf-8"))
    assert "kernel runs stored in the package (15 runs on Linux 6.18" in html
    assert "Over 12 flow cells" in html


def test_exported_study_files_run_through_tcplab_scenarios(installed: Path, tmp_path: Path) -> None:
    env = _clean_env()
    subprocess.run(
        [str(installed / "tcplab"), "reproduce", "braud2016", "--export", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        env=env,
        check=True,
    )
    files = sorted(p.name for p in (tmp_path / "braud2016").iterdir())
    assert files == ["exp1.toml", "exp2.toml", "pendulum.toml"]
    # An edited copy is what runs: a broken field is reported with the copy's path.
    exp1 = tmp_path / "braud2016" / "exp1.toml"
    exp1.write_text(exp1.read_text().replace('rate = "10Mbps"', 'rate = "10Mbpz"'))
    r = subprocess.run(
        [str(installed / "tcplab"), "reproduce", "braud2016", "--quick", "--out", "o"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**env, "TCPLAB_SCENARIOS": str(tmp_path)},
        check=False,
    )
    assert r.returncode != 0
    assert str(exp1) in r.stderr
    assert "10Mbpz" in r.stderr
