"""The Python API and the compiled core's contract, independent of what the
simulation computes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import tcplab
from tcplab import _core

BROKEN_TOML = '[[flows]\nname = "unterminated\n'


def test_catalog_has_the_three_kinds() -> None:
    cat = _core.catalog()
    assert set(cat) == {"controllers", "queues", "profiles"}
    for entries in cat.values():
        assert isinstance(entries, list)
        for entry in entries:
            assert set(entry) == {"name", "description", "source", "params"}
            for param in entry["params"]:
                assert isinstance(param, tuple)
                assert len(param) == 3
                assert all(isinstance(p, str) for p in param)


def test_version_is_exposed() -> None:
    assert isinstance(_core.__version__, str)
    assert tcplab.__version__ == _core.__version__


def test_scenario_error_is_a_value_error() -> None:
    assert issubclass(_core.ScenarioError, ValueError)
    assert tcplab.ScenarioError is _core.ScenarioError
    assert _core.ScenarioError.__module__ == "tcplab._core"


@pytest.mark.parametrize("call", [_core.validate, _core.run])
def test_core_rejects_broken_toml_naming_the_path(call: object) -> None:
    with pytest.raises(_core.ScenarioError, match=re.escape("some/where.toml")):
        call(BROKEN_TOML, "some/where.toml")  # type: ignore[operator]


def test_text_scenario_is_reported_as_string() -> None:
    with pytest.raises(tcplab.ScenarioError, match="<string>"):
        tcplab.validate(BROKEN_TOML)


@pytest.mark.parametrize(
    ("scenario", "is_text"),
    [
        ('name = "x"', True),
        ("[net]\n", True),
        ("scenarios/x.toml", False),
        (Path("a=b.toml"), False),
    ],
)
def test_read_scenario_tells_text_from_paths(
    scenario: str | Path, is_text: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    if not is_text:
        Path(scenario).parent.mkdir(parents=True, exist_ok=True)
        Path(scenario).write_text("# file\n")
    text, path = tcplab.read_scenario(scenario)
    if is_text:
        assert (text, path) == (scenario, "<string>")
    else:
        assert (text, path) == ("# file\n", str(scenario))


def test_missing_file_raises_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        tcplab.validate(tmp_path / "missing.toml")
    with pytest.raises(FileNotFoundError):
        tcplab.run(str(tmp_path / "missing.toml"))


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_out_of_range_seed_is_a_value_error(seed: int) -> None:
    with pytest.raises(ValueError, match="seed"):
        tcplab.run('name = "x"', seed=seed)


def test_non_integer_seed_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        tcplab.run('name = "x"', seed=1.5)  # type: ignore[arg-type]


def test_core_seed_must_fit_u64() -> None:
    with pytest.raises(OverflowError):
        _core.run('name = "x"', "<string>", -1)


REFERENCE_SCENARIO = Path(__file__).parents[1] / "scenarios/braud2016/long-newreno.toml"


@pytest.mark.skipif(not REFERENCE_SCENARIO.exists(), reason="reference scenario not written yet")
def test_run_returns_the_columns_the_fake_has() -> None:
    """The fake result the other tests use has the real result's shape."""
    from conftest import fake_raw

    real = _core.run(REFERENCE_SCENARIO.read_text(), str(REFERENCE_SCENARIO))
    fake = fake_raw()
    assert list(real["meta"]) == list(fake["meta"])
    assert list(real["flows"]) == list(fake["flows"])
    assert list(real["links"]) == list(fake["links"])
    for table in ("phases", "link_phases", "generators", "transfers"):
        assert list(real[table]) == list(fake[table])  # type: ignore[literal-required]
    traces: dict[str, Any] = dict(real["traces"])
    for name, columns in traces.items():
        assert list(columns) == list(fake["traces"][name])


@pytest.mark.skipif(not REFERENCE_SCENARIO.exists(), reason="reference scenario not written yet")
def test_trace_columns_without_numpy_hold_the_arrays_values_and_write_the_same_files(
    tmp_path: Path,
) -> None:
    import numpy as np

    text, path = REFERENCE_SCENARIO.read_text(), str(REFERENCE_SCENARIO)
    arrays = _core.run(text, path)
    columns = _core.run(text, path, arrays=False)
    assert set(arrays["traces"]) == set(columns["traces"]) == {"cwnd", "queue"}
    for name, cols in arrays["traces"].items():
        own: dict[str, Any] = dict(columns["traces"][name])
        for field, values in dict(cols).items():
            col = own[field]
            assert isinstance(col, _core.TraceColumn)
            assert len(col) == len(values)
            assert col.dtype == str(values.dtype)
            got = col.to_numpy()
            assert got.dtype == values.dtype
            np.testing.assert_array_equal(got, values)
    # The same run: the same files, byte for byte (but summary.json's wall time).
    a = tcplab.Results(arrays).write(tmp_path / "arrays")
    c = tcplab.Results(columns).write(tmp_path / "columns")
    files = sorted(p.name for p in a.iterdir())
    assert files == sorted(p.name for p in c.iterdir())
    assert "trace_cwnd.parquet" in files
    for f in files:
        if f != "summary.json":
            assert (a / f).read_bytes() == (c / f).read_bytes(), f
    assert tcplab.Results(columns).traces["cwnd"].equals(tcplab.Results(arrays).traces["cwnd"])
