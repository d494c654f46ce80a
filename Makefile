# tcplab — the README's two commands:
#   make demo   build tcplab into .venv (release) and run the two reference scenarios
#   make test   build, then run every check: cargo test/clippy/fmt, ruff, mypy
#               (and stubtest of _core.pyi), pytest
# Needs only python3, cargo and access to PyPI and crates.io.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test install install-dev clean

# A virtual environment with maturin in it.
$(BIN)/maturin:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet 'maturin>=1.7,<2'

# Build the extension (release: lto, see Cargo.toml) and install the package
# in editable mode with its dependencies (install-dev: and the dev tools).
DEVELOP := VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release

install: $(BIN)/maturin
	$(DEVELOP)

install-dev: $(BIN)/maturin
	$(DEVELOP) --extras dev

demo: install
	$(BIN)/tcplab run scenarios/braud2016/long-newreno.toml --out out/long-newreno
	$(BIN)/tcplab run scenarios/braud2016/long-newreno-buf250.toml --out out/long-newreno-buf250

# The py crate is an extension module: it links against the interpreter that
# loads it, so it has no standalone test binary; pytest tests it instead.
test: install-dev
	cargo test --workspace --exclude tcplab-py
	cargo clippy --workspace --all-targets -- -D warnings
	cargo fmt --all --check
	$(BIN)/ruff check python tests $(wildcard bench)
	$(BIN)/mypy python/tcplab
	$(BIN)/python -m mypy.stubtest tcplab._core --allowlist tests/stubtest-allowlist.txt
	$(BIN)/pytest

clean:
	rm -rf $(VENV) out python/tcplab/_core*.so
