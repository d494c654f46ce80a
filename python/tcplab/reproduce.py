"""Reproductions of the reference studies: ``tcplab reproduce NAME``.

What every study shares: running its parts (sweeps and single runs of the
scenario files it ships, see :mod:`tcplab.studies`) into one directory each,
and the frame of its report (title, citation, provenance). What is particular
to a study (its files, quick overrides, tables and report) lives in its own
module under ``tcplab/studies/``. ``quick`` runs a small version of the same
study (fewer repetitions, shorter runs) for a demo; its numbers are not the
study's.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab import _core
from tcplab.results import inside
from tcplab.studies import STUDIES, Part, Study, get, scenario_text

if TYPE_CHECKING:
    from tcplab.report import Report
    from tcplab.sweep import Progress, Sweep

__all__ = ["STUDIES", "export", "finish_report", "part_groups", "reproduce", "start_report"]


def start_report(study: Study, quick: bool, about: str) -> Report:
    """A study's report with its title and an "About" section: what the study
    is (``about``), the paper it reproduces, and what ``--quick`` changes."""
    from tcplab.report import Report

    rep = Report(
        f"{study.name}: {study.title}" + (" (quick)" if quick else ""),
        study.paper.text(),
    )
    text = about + "\n\nReproduces: " + study.paper.text()
    if quick:
        text += (
            "\n\nThis is the --quick version ("
            + (study.quick_note or "fewer and shorter runs")
            + "): a demonstration of the pipeline; its numbers are not the study's."
        )
    rep.add_section("About", text)
    return rep


def over_runs(n: int, runs: str = "repetitions") -> str:
    """How a caption states a statistic over ``n`` runs: "mean and 95 % CI
    over the 5 repetitions", or, for one run, "one run (no interval)"."""
    if n <= 1:
        return "one run (no interval)"
    return f"mean and 95 % CI over the {n} {runs}"


def finish_report(rep: Report, out: Path) -> Path:
    """Put the paper table first (the study's published results judged on its
    runs, :func:`tcplab.studies.claims.add_paper_table`; the study and its
    version are read from ``out/study.json``), add the provenance of every run
    under ``out`` and write ``out/report.html``."""
    from tcplab.studies.claims import add_paper_table

    facts = out / "study.json"
    if facts.is_file():
        meta = json.loads(facts.read_text(encoding="utf-8"))
        n = len(rep.sections)
        if add_paper_table(rep, get(meta["study"]), out, bool(meta.get("quick"))) is not None:
            added = rep.sections[n:]
            del rep.sections[n:]
            rep.sections[:0] = added
    rep.add_section("Provenance")
    rep.add_provenance_from(out)
    return rep.write(inside(out, "report.html"))


def reproduce(
    name: str,
    out: str | os.PathLike[str],
    *,
    quick: bool = False,
    jobs: int | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    on_progress: Callable[[str, Progress], None] | None = None,
    only: Sequence[str] = (),
    sim_only: bool = False,
) -> Path:
    """Run study ``name`` into ``out`` (one sub-directory per part) and write
    ``out/report.html``; returns the report's path.

    ``only``: run only these groups of parts (a part ``cells/linux`` is in
    group ``cells``; :func:`part_groups` lists them); the report is written
    from every part found in ``out``. ``sim_only``: run only the simulator's
    parts, and compare them with the real-stack parts already in ``out``
    (which must be there); needs no root."""
    from tcplab.results import Results, _write_atomic
    from tcplab.sweep import Progress, SweepError, run_sweep

    study = get(name)
    outp = Path(out)
    parts = _select_parts(study, quick, only, sim_only)
    restored: list[str] = []
    if sim_only:
        restored = _restore_stored(study, outp, quick, only)
        _check_stored(study, outp, quick, only)
    sweeps = []
    for part in parts:
        sw = _part_sweep(study, part, quick)
        if part.backend == "linux":
            # Before anything runs: a study that cannot finish here says so at once.
            try:
                _core.check_linux(sw.task(0, 0).text, sw.path)
            except _core.BackendError as e:
                raise SweepError(f"{study.name}, part {part.name}: {e}") from e
        sweeps.append(sw)
    outp.mkdir(parents=True, exist_ok=True)
    for part, sw in zip(parts, sweeps):
        path = sw.path
        if part.single:
            # One run with the file's own seed (a sweep's runs get derived seeds).
            t0 = time.perf_counter()
            task = sw.task(0, 0)
            res = Results(_core.run(task.text, path, None), scenario=task.text)
            res.write(inside(outp, *part.name.split("/")))
            if on_progress is not None:
                on_progress(
                    part.name, Progress(1, 1, 0, res.meta["duration_s"], time.perf_counter() - t0)
                )
            continue

        again = resume
        if part.derive is not None:
            sw.override(part.derive(outp))
            # Derived from the real-stack runs, which a resumed part may have
            # added to: simulated runs made with other values are replaced,
            # not resumed (resuming them would mix two host timings).
            again = resume and _same_scenario(outp / part.name, sw.scenario_hash)

        def prog(p: Progress, part_name: str = part.name) -> None:
            if on_progress is not None:
                on_progress(part_name, p)

        run_sweep(
            sw,
            inside(outp, *part.name.split("/")),
            jobs=jobs,
            scheduler=scheduler if part.backend == "sim" else None,
            resume=again,
            on_progress=prog,
        )
    facts: dict[str, object] = {"study": name, "quick": quick, "tcplab_version": _core.__version__}
    if only:
        facts["parts"] = list(only)
    if sim_only:
        facts["sim_only"] = True
    if restored:
        facts["stored_runs"] = restored
    text = json.dumps(facts, indent=2) + "\n"
    _write_atomic(inside(outp, "study.json"), lambda p: p.write_text(text, encoding="utf-8"))
    from tcplab.report import figure_pool

    with figure_pool(jobs):
        return study.report(outp, quick)


def _same_scenario(d: Path, scenario_hash: str) -> bool:
    """Whether the sweep in ``d`` (if any) was made from this scenario."""
    from tcplab.sweep import MANIFEST

    try:
        old = json.loads((d / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True  # nothing there (or unreadable: run_sweep says so)
    return bool(old.get("scenario_sha256") == scenario_hash)


def _part_sweep(
    study: Study, part: Part, quick: bool, edit: Callable[[str], str] | None = None
) -> Sweep:
    """A part's sweep as :func:`reproduce` runs it: its file, its overrides,
    the quick ones on top in the quick version, its backend. ``edit``
    rewrites the scenario's text first (scenarios/linux-check/ablate.py's
    variants)."""
    from tcplab.sweep import load_sweep

    text, path = scenario_text(study.name, part.file)
    if edit is not None:
        text = edit(text)
    sw = load_sweep(text, path)
    if part.select:
        sw.select(part.select)
    if part.overrides or part.repetitions is not None:
        sw.override(part.overrides, part.repetitions)
    if part.first_overrides:
        sw.override_first(part.first_overrides)
    if quick:
        sw.override(part.quick, part.quick_repetitions)
    sw.backend = part.backend
    return sw


def _stored_parts(study: Study, quick: bool, only: Sequence[str]) -> list[Part]:
    """The real-stack parts ``--sim-only`` compares with: those the study
    would run with these options."""
    mode = "quick" if quick else "full"
    return [
        part
        for part in study.parts
        if part.backend != "sim"
        and mode in part.modes
        and (not only or _group(part) in only or part.always)
        and not (mode in part.optional and _group(part) not in only)
    ]


def stored_file(study: str, group: str) -> Any:
    """The package's stored real-stack runs of a study's part group
    (``data/<study>/kernel/<group>.json.gz``, :mod:`tcplab.stored`), as an
    ``importlib.resources`` traversable (it may not exist)."""
    from importlib import resources

    return resources.files("tcplab.studies") / "data" / study / "kernel" / f"{group}.json.gz"


def _restore_stored(study: Study, outp: Path, quick: bool, only: Sequence[str]) -> list[str]:
    """``--sim-only``: the real-stack parts ``outp`` holds none of, restored
    from the runs stored in the package where it has them of the very
    scenarios this version runs (:mod:`tcplab.stored`); their names."""
    from tcplab import stored
    from tcplab.sweep import MANIFEST

    done = []
    for part in _stored_parts(study, quick, only):
        f = stored_file(study.name, _group(part))
        if (outp / part.name / MANIFEST).exists() or not f.is_file():
            continue
        data = stored.read(f)
        if data["manifest"].get("scenario_sha256") != _part_sweep(study, part, quick).scenario_hash:
            continue  # another version of the file (or the other mode): _check_stored says so
        stored.restore(data, outp / part.name)
        done.append(part.name)
    return done


def _stored_groups_hint(study: Study) -> str:
    """``; it stores those of A, B: name them with --part`` (or nothing)."""
    have = sorted(
        {
            _group(p)
            for p in study.parts
            if p.backend != "sim" and not p.always and stored_file(study.name, _group(p)).is_file()
        }
    )
    return f"; it stores those of {', '.join(have)}: name them with --part" if have else ""


def _check_stored(study: Study, outp: Path, quick: bool, only: Sequence[str]) -> None:
    """``--sim-only``: the real-stack runs must be stored in ``outp``, and be
    of the very scenarios the simulator's side will run (runs pair by point
    and repetition, so a full run against a quick one would pair silently)."""
    from tcplab.sweep import MANIFEST, SweepError

    mode = "quick" if quick else "full"
    for part in _stored_parts(study, quick, only):
        manifest = outp / part.name / MANIFEST
        if not manifest.is_file():
            packaged = stored_file(study.name, _group(part)).is_file()
            raise SweepError(
                f"--sim-only compares with the real-stack runs stored in {outp}, and "
                f"{outp / part.name} holds none"
                + (
                    f" (the package's stored runs of {_group(part)} were made from another "
                    f"version of {part.file}, or are the other mode's)"
                    if packaged
                    else f" (the package stores none of {_group(part)}"
                    + _stored_groups_hint(study)
                    + ")"
                )
                + ": run the study (or that part) once without --sim-only first"
            )
        stored = json.loads(manifest.read_text(encoding="utf-8")).get("scenario_sha256")
        if stored != _part_sweep(study, part, quick).scenario_hash:
            other = "full" if quick else "--quick"
            raise SweepError(
                f"--sim-only: the real-stack runs in {manifest.parent} were made from another "
                f"version of {part.file} (the {other} study, or an edited file) than this "
                f"{mode} study's: run --sim-only with the options they were made with, or "
                "run that part again without --sim-only"
            )


def _select_parts(study: Study, quick: bool, only: Sequence[str], sim_only: bool) -> list[Part]:
    """The parts :func:`reproduce` runs (see its ``only`` and ``sim_only``)."""
    from tcplab.sweep import SweepError

    mode = "quick" if quick else "full"
    parts = [p for p in study.parts if mode in p.modes]
    groups = part_groups(study, quick)
    bad = [g for g in only if g not in groups]
    if bad:
        full = part_groups(study, False)
        if bad[0] in full:
            raise SweepError(
                f"{study.name}: part {bad[0]!r} runs in the full version only (not --quick)"
            )
        raise SweepError(
            f"{study.name} has no part {bad[0]!r}; its parts are: {', '.join(full)} "
            "(--part names a group: the part's name up to its first '/', as "
            "--list-parts shows them)"
        )
    parts = [p for p in parts if mode not in p.optional or _group(p) in only]
    if only:
        parts = [p for p in parts if _group(p) in only or p.always]
    if sim_only:
        if all(p.backend == "sim" for p in study.parts):
            raise SweepError(f"{study.name} has no real-stack parts: --sim-only does not apply")
        parts = [p for p in parts if p.backend == "sim"]
    return parts


def _group(part: Part) -> str:
    return part.name.split("/", 1)[0]


def part_groups(study: Study, quick: bool = False) -> list[str]:
    """The groups of a study's parts (``cells`` for ``cells/linux`` and
    ``cells/sim``), in order, for the given version (full or quick)."""
    mode = "quick" if quick else "full"
    out: list[str] = []
    for p in study.parts:
        if mode in p.modes and _group(p) not in out:
            out.append(_group(p))
    return out


def export(name: str, directory: str | os.PathLike[str]) -> list[Path]:
    """Copy study ``name``'s scenario files into ``directory/<name>/`` (to read,
    edit and run with ``TCPLAB_SCENARIOS=directory``); returns the files written.
    Existing files are left alone: ``FileExistsError`` names the first one."""
    study = get(name)
    dest = inside(directory, study.name)
    files = list(dict.fromkeys(inside(dest, p.file) for p in study.parts))
    for f in files:
        if f.exists():
            raise FileExistsError(f"{f} exists; export into an empty directory")
    dest.mkdir(parents=True, exist_ok=True)
    for f in files:
        text, _ = scenario_text(study.name, f.name)
        f.write_text(text, encoding="utf-8")
    return files
