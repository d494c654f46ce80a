"""Training runs for profile-guided optimisation (``make pgo-profile``, see
pgo/README.md): a few runs of each study's quick version, as ``tcplab
reproduce --quick`` makes them, through the extension module that is
installed (the instrumented build ``tools/pgo-profile.sh`` puts in .venv).
Each run's scenario is also written to OUT_DIR, for the instrumented core
benchmark binary (``runscen``) to run the same work.

Then two of scenarios/scale's large scenarios (:data:`SCALE`). The core
benchmarks' scenarios (crates/model/benches: mascolo2006 B on the ``rfc``
profile, braud2016's long run) are not among them: they measure what the
profile was not trained on.

Usage: python tools/pgo_train.py OUT_DIR
"""

from __future__ import annotations

import importlib.util
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from tcplab import _core
from tcplab.reproduce import _part_sweep, _select_parts
from tcplab.studies import get
from tcplab.sweep import RunTask

#: The studies trained on, with their optional parts: mascolo2006's brings
#: CUBIC and the linux profile.
STUDIES = {
    "braud2016": (),
    "mascolo2006": ("A", "B", "C", "cubic", "linux"),
    "barakat1999": (),
    "highspeed-fiber": (),
}
#: Runs taken from each part, spread over its points.
PER_PART = 3
#: Large scenarios of scenarios/scale/make_scale.py, for the paths that grow
#: with the number of hosts and flows (building the network, collecting
#: and writing results), on the freebsd profile the studies train anyway.
SCALE = ("flows-100000", "dumbbell-10000")
ROOT = Path(__file__).resolve().parents[1]


def _scale_tasks() -> Iterator[tuple[str, RunTask]]:
    spec = importlib.util.spec_from_file_location(
        "make_scale", ROOT / "scenarios" / "scale" / "make_scale.py"
    )
    assert spec is not None
    assert spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for name in SCALE:
        text = mod.scenario(name).replace(
            "[defaults.host]\n", '[defaults.host]\nprofile = "freebsd"\n', 1
        )
        assert 'profile = "freebsd"' in text, name
        path = str(ROOT / "scenarios" / "scale" / f"{name}.toml")
        yield f"scale/{name}", RunTask(name, 0, {}, 0, 1, text, path)


def tasks() -> Iterator[tuple[str, RunTask]]:
    """The training runs: (study/part, task)."""
    for name, only in STUDIES.items():
        study = get(name)
        for part in _select_parts(study, True, only, False):
            if part.backend != "sim" or part.derive is not None:
                continue  # the real stack, or values derived from its runs
            runs = _part_sweep(study, part, True).tasks()
            step = max(1, len(runs) // PER_PART)
            for t in runs[::step][:PER_PART]:
                yield f"{name}/{part.name}", t
    yield from _scale_tasks()


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    n = 0
    for n, (label, t) in enumerate(tasks(), 1):
        (out / f"{n:03d}.toml").write_text(t.text)
        _core.run(t.text, t.path, t.seed)
        print(f"{n:3d} {label} {t.run_id} ({time.perf_counter() - t0:.1f} s)", flush=True)
    print(f"{n} training runs in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
