"""Profile-guided optimisation (pgo/README.md): when the build uses the
profile, and what the profile is trained on."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]

ROOT = Path(__file__).resolve().parents[1]


def _make_n(target: str, *overrides: str) -> str:
    """What ``make -n TARGET`` would run (nothing is run)."""
    return subprocess.run(
        ["make", "-n", "-C", str(ROOT), target, *overrides],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def _rustc_llvm() -> str:
    out = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout
    line = next(x for x in out.splitlines() if x.startswith("LLVM version"))
    return line.split()[-1].split(".")[0]


def test_the_profile_is_used_exactly_when_this_rustc_llvm_wrote_it() -> None:
    major = (ROOT / "pgo" / "llvm-major").read_text().strip()
    assert major.isdigit()
    assert (ROOT / "pgo" / "tcplab.profdata").stat().st_size > 0
    use = f"-Cprofile-use={ROOT / 'pgo' / 'tcplab.profdata'}"
    for target in ("install", "install-dev", "bench"):
        plan = _make_n(target)
        assert (use in plan) == (major == _rustc_llvm()), (target, plan)
        # A profile of another LLVM: a plain build, in the usual target directory.
        other = _make_n(target, "PGO_LLVM=1")
        assert "profile-use" not in other
        assert "target/pgo" not in other
        assert target == "bench" or "note: plain build" in other


def _trainer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pgo_train", ROOT / "tools" / "pgo_train.py")
    assert spec is not None
    assert spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["pgo_train"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_training_covers_every_study_but_not_the_benchmarks_scenarios() -> None:
    runs = list(_trainer().tasks())
    studies = {label.split("/")[0] for label, _ in runs}
    assert studies == {"braud2016", "mascolo2006", "barakat1999", "highspeed-fiber", "scale"}
    profiles = set()
    for _, t in runs:
        sc = tomllib.loads(t.text)
        hosts = [sc.get("defaults", {}).get("host", {}), *sc.get("host", [])]
        profiles |= {h["profile"] for h in hosts if "profile" in h}
    # The studies' profiles, and not the mascolo2006 benchmark's (B on rfc).
    assert {"ns2", "linux", "linux22"} <= profiles
    assert "rfc" not in profiles
    bench = (ROOT / "scenarios" / "braud2016" / "long-newreno.toml").read_text()
    assert all(t.text != bench for _, t in runs)
