# tcplab — the README's two commands:
#   make demo   build tcplab into .venv (release) and reproduce braud2016 (quick) into a report
#   make test   build, then run every check: cargo test/clippy/fmt, ruff, mypy
#               (and stubtest of _core.pyi), pytest
# Needs only python3, cargo and access to PyPI and crates.io.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test install install-dev chromium clean

# A virtual environment with maturin in it.
$(BIN)/maturin:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet 'maturin>=1.7,<2'

# Build the extension (release: lto, see Cargo.toml) and install the package
# in editable mode with its dependencies (install-dev: and the dev tools).
DEVELOP := VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release

# The package's bytecode is compiled once here, as pip does for a wheel: an
# editable install leaves it to the first import, and with
# PYTHONDONTWRITEBYTECODE set every `tcplab` command would compile the CLI
# again (about 25 ms of its start-up).
COMPILE := $(BIN)/python -m compileall -q python/tcplab

install: $(BIN)/maturin
	$(DEVELOP)
	$(COMPILE)

install-dev: $(BIN)/maturin
	$(DEVELOP) --extras dev
	$(COMPILE)

# The braud2016 study in small (fewer, shorter runs): out/braud2016-quick/report.html.
# The whole study: .venv/bin/tcplab reproduce braud2016 (a few minutes on 2 cores).
demo: install
	$(BIN)/tcplab reproduce braud2016 --quick

# Headless Chromium renders the HTML report in tests/test_report.py. Install
# it from the distribution when missing and we can (root, apt); otherwise say
# so: that one test then skips.
chromium:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || \
	{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  (apt-get update -qq && apt-get install -y -qq chromium) || \
	  echo "note: chromium not installed; the report rendering test will be skipped"; }

# The py crate is an extension module: it links against the interpreter that
# loads it, so it has no standalone test binary; pytest tests it instead.
test: install-dev chromium
	cargo test --workspace --exclude tcplab-py
	cargo clippy --workspace --all-targets -- -D warnings
	cargo fmt --all --check
	$(BIN)/ruff check python tests $(wildcard bench)
	$(BIN)/mypy python/tcplab
	$(BIN)/python -m mypy.stubtest tcplab._core --allowlist tests/stubtest-allowlist.txt
	$(BIN)/pytest

clean:
	rm -rf $(VENV) out python/tcplab/_core*.so
