#!/usr/bin/env bash
# Make pgo/tcplab.profdata, the profile the release builds are optimised with
# (`make pgo-profile`; see pgo/README.md). Run it after changing the core's
# hot path: a profile older than the code still builds, but the functions
# that changed lose its guidance.
#
# 1. Build the instrumented core twice, as the two release builds that use the
#    profile are made: the benchmark binary `runscen` (whose functions are
#    those of `cargo bench`) and the extension module (as maturin builds it
#    for `make install`; loaded from target/pgo-gen/py, .venv is not touched).
# 2. Run the training runs through both (tools/pgo_train.py).
# 3. Merge the raw profiles with the llvm-profdata of this rustc's LLVM
#    (installed from Debian's llvm-N when missing and we are root).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
find_profdata() {
  command -v "llvm-profdata-$major" 2>/dev/null ||
    { [ -x "/usr/lib/llvm-$major/bin/llvm-profdata" ] && echo "/usr/lib/llvm-$major/bin/llvm-profdata"; } ||
    true
}
profdata=$(find_profdata)
if [ -z "$profdata" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq "llvm-$major" >/dev/null
    profdata=$(find_profdata)
  fi
  if [ -z "$profdata" ]; then
    echo "error: no llvm-profdata for LLVM $major (rustc's); install llvm-$major" >&2
    exit 1
  fi
fi

gen=$PWD/target/pgo-gen
raw=$gen/raw
rm -rf "$raw" "$gen/train"
flags="-Cprofile-generate=$raw"
CARGO_TARGET_DIR=$gen RUSTFLAGS="$flags" cargo build --release -q -p tcplab-model --example runscen
CARGO_TARGET_DIR=$gen RUSTFLAGS="$flags" .venv/bin/maturin build --release -q --out "$gen/wheel"
rm -rf "$raw" # what build scripts wrote
# The package beside its instrumented extension, ahead of the installed one.
rm -rf "$gen/py" && mkdir -p "$gen/py"
cp -r python/tcplab "$gen/py/"
rm -f "$gen"/py/tcplab/_core*.so
.venv/bin/python - "$(ls -t "$gen"/wheel/*.whl | head -1)" "$gen/py" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith("tcplab/_core")])
PY
PYTHONPATH=$gen/py .venv/bin/python tools/pgo_train.py "$gen/train"
for f in "$gen"/train/*.toml; do
  "$gen/release/examples/runscen" "$f" >/dev/null
done
"$profdata" merge -o pgo/tcplab.profdata "$raw"
echo "$major" >pgo/llvm-major
# The core's sources the profile was made from (make install notes a change).
git rev-parse HEAD:crates >pgo/crates-tree
echo "wrote pgo/tcplab.profdata ($(wc -c <pgo/tcplab.profdata) bytes, LLVM $major); now: make install"
