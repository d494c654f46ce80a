# tcplab — the README's two commands:
#   make demo   build tcplab into .venv (release) and reproduce braud2016 (quick) into a report
#   make test   build, then run every check: cargo test/clippy/fmt, ruff, mypy
#               (and stubtest of _core.pyi), pytest
# Needs only python3, cargo and access to PyPI and crates.io.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test install install-dev bench pgo-profile chromium clean

# A virtual environment with maturin in it.
$(BIN)/maturin:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet 'maturin>=1.7,<2'

# Profile-guided optimisation (pgo/README.md): release builds of the core use
# pgo/tcplab.profdata when this rustc's LLVM wrote it (about 10 % faster, the
# same results), in their own target directory; otherwise a plain build.
PGO_LLVM  := $(shell cat pgo/llvm-major 2>/dev/null)
RUSTC_LLVM := $(shell rustc -vV 2>/dev/null | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
ifneq ($(PGO_LLVM),)
ifeq ($(PGO_LLVM),$(RUSTC_LLVM))
PGO := CARGO_TARGET_DIR=$(abspath target/pgo) \
	RUSTFLAGS="-Cprofile-use=$(abspath pgo/tcplab.profdata) -Cllvm-args=-no-pgo-warn-mismatch"
endif
endif
# Say so when the core changed since the profile was made (still built with it).
PGO_NOTE := @[ -z '$(PGO)' ] && echo "note: plain build (no PGO profile for LLVM $(RUSTC_LLVM))" || \
	[ "$$(git rev-parse HEAD:crates 2>/dev/null)" = "$$(cat pgo/crates-tree 2>/dev/null)" ] || \
	echo "note: the core changed since pgo/tcplab.profdata was made: make pgo-profile renews it"

# Build the extension (release: lto, see Cargo.toml) and install the package
# in editable mode with its dependencies (install-dev: and the dev tools).
DEVELOP := $(PGO) VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release

# The package's bytecode is compiled once here, as pip does for a wheel: an
# editable install leaves it to the first import, and with
# PYTHONDONTWRITEBYTECODE set every `tcplab` command would compile the CLI
# again (about 25 ms of its start-up).
COMPILE := $(BIN)/python -m compileall -q python/tcplab

install: $(BIN)/maturin
	$(PGO_NOTE)
	$(DEVELOP)
	$(COMPILE)

install-dev: $(BIN)/maturin
	$(PGO_NOTE)
	$(DEVELOP) --extras dev
	$(COMPILE)

# The core's benchmarks (criterion), built as the package is (with the profile).
bench:
	$(PGO) cargo bench -p tcplab-model

# Renew pgo/tcplab.profdata from training runs of the studies (tools/pgo-profile.sh).
pgo-profile: install-dev
	tools/pgo-profile.sh
	$(MAKE) install-dev

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
