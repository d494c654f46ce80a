#!/usr/bin/env bash
# Build ns-2.35 with the University of Melbourne CUBIN FAST TCP module, the
# ns-2 FAST that mascolo2006 ran and tcplab's FAST follows, for
# `tools/ns2_reference.py --only mascolo-a-fast` (ns2-check's FAST cells).
#
# ns-2.35 does not ship the module. The public tree hbatmit/ns2.35 (an
# ns-2.35 with it installed "from cubinlab.ee.unimelb.edu.au/ns2fasttcp")
# has its files: tcp/tcp-fast.cc and tcp/tcp-fast.h (version 1.1.3, 14 Jan
# 2007) and the 20 lines of defaults its commit f4d41e2 adds to
# tcl/lib/ns-default.tcl (alpha_ 100, beta_ 100, gamma_ 0.5,
# cwnd_update_period_ 0.01, mi_threshold_ 0.00075, ...). This script copies
# a built ns-2.35 tree (../shared/tools/ns2-build.sh), adds those, and
# builds it. Version 1.1.3 made "update the window every other RTT" the
# default (#define UPDATE_CWND_EVERY_OTHER_RTT in tcp-fast.h); mascolo2006
# (PFLDnet, February 2006) ran an earlier one, which updated every RTT, so
# the define is removed (EVERY_OTHER=1 keeps it).
#
#   NS2_TREE=/work/ns2build/src/ns-2.35 \
#   HBAT_GIT=/work/.mirror/hbatmit+ns2.35/repo \
#   OUT=/work/ns2fast/ns-2.35-everyrtt  tools/ns2_fast_module.sh
#
# then: tools/ns2_reference.py --ns $OUT/ns --only mascolo-a-fast
# (bring hbatmit/ns2.35 with the search tool's `fetch`; about two minutes).
set -euo pipefail
: "${NS2_TREE:?the built ns-2.35 tree (ns2-build.sh)}"
: "${HBAT_GIT:?the git directory of hbatmit/ns2.35}"
: "${OUT:?where to put the tree with the module}"
EVERY_OTHER="${EVERY_OTHER:-0}"

hb() { git --git-dir="$HBAT_GIT" show "$1"; }

rm -rf "$OUT"
cp -a "$NS2_TREE" "$OUT"
cd "$OUT"
hb HEAD:tcp/tcp-fast.cc > tcp/tcp-fast.cc
hb HEAD:tcp/tcp-fast.h > tcp/tcp-fast.h
if [ "$EVERY_OTHER" = 0 ]; then
    # The window updated every RTT, as before 1.1.3.
    sed -i 's|^#define UPDATE_CWND_EVERY_OTHER_RTT.*|#undef UPDATE_CWND_EVERY_OTHER_RTT /* every RTT, as before 1.1.3 */|' tcp/tcp-fast.h
    grep -q '^#undef UPDATE_CWND_EVERY_OTHER_RTT' tcp/tcp-fast.h
fi
for mk in Makefile Makefile.in; do
    grep -q 'tcp/tcp-fast.o' "$mk" || sed -i 's|tcp/tcp-newreno.o|tcp/tcp-newreno.o tcp/tcp-fast.o|' "$mk"
    grep -q 'tcp/tcp-fast.o' "$mk"
done
# The module's defaults: the lines commit f4d41e2 added to ns-default.tcl.
if ! grep -q 'Agent/TCP/Fast' tcl/lib/ns-default.tcl; then
    git --git-dir="$HBAT_GIT" show f4d41e2 -- tcl/lib/ns-default.tcl |
        sed -n 's/^+\([^+]\)/\1/p; s/^+$//p' >> tcl/lib/ns-default.tcl
fi
grep -Eq '^Agent/TCP/Fast +set alpha_' tcl/lib/ns-default.tcl
# Makefile.in is newer than Makefile after the edit: make would ask to
# rerun configure, which the copied tree does not need.
touch Makefile
make CCOPT="-O2 -Wno-write-strings -Wno-parentheses -fpermissive -std=gnu++98 -fcommon -DUSE_INTERP_RESULT -DUSE_INTERP_ERRORLINE" ns
echo 'set ns [new Simulator]; set a [new Agent/TCP/Fast]; puts "Agent/TCP/Fast alpha_ [$a set alpha_]"; exit 0' > /tmp/ns2fast-check.tcl
./ns /tmp/ns2fast-check.tcl
