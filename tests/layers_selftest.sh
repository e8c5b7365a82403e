#!/bin/sh
# SPDX-License-Identifier: MIT
# layers_selftest.sh — layers.sh fails on each kind of violation it names
# (an include up, across, without a folder, of a public header above the
# including file's layer, a public header including one above it or an
# internal one, a public header with no layer, a cycle, a folder over a
# quarter of the lines with no reason given) and passes on a clean tree
# and on the real one, which fails once an upward include is planted. Usage: layers_selftest.sh LAYERS_SH
set -u
check=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

tree() {
    rm -rf "$tmp/src" "$tmp/include"
    mkdir -p "$tmp/src/base" "$tmp/src/wire" "$tmp/src/rollback" "$tmp/src/timing" "$tmp/src/session" \
             "$tmp/include/tempo"
    printf '#include "tempo/base.h"\n' > "$tmp/include/tempo/config.h"
    printf '#include "tempo/config.h"\n#include "tempo/base.h"\n' > "$tmp/include/tempo/session.h"
    : > "$tmp/include/tempo/base.h"
    for d in base wire rollback timing session; do # no folder over a quarter
        i=0; while [ $i -lt 30 ]; do echo "/* $i */"; i=$((i + 1)); done > "$tmp/src/$d/filler.c"
    done
}
expect() { # expect PASS|FAIL TEXT-IN-OUTPUT
    out=$(sh "$check" "$tmp" 2>&1); rc=$?
    if [ "$1" = PASS ] && [ $rc -ne 0 ]; then echo "expected a pass: $out"; fail=1; fi
    if [ "$1" = FAIL ] && { [ $rc -eq 0 ] || ! printf '%s' "$out" | grep -q "$2"; }; then
        echo "expected a failure naming '$2', got ($rc): $out"; fail=1
    fi
}

tree
printf '#include "base/a.h"\n#include "tempo/base.h"\n' > "$tmp/src/wire/w.c"
printf '#include "tempo/session.h"\n#include "wire/w.h"\n' > "$tmp/src/session/s.c"
printf '#include "tempo/config.h"\n' > "$tmp/src/rollback/r.h"
expect PASS ""

tree; printf '#include "session/s.h"\n' > "$tmp/src/base/a.c"; expect FAIL "up or across"
tree; printf '#include "timing/t.h"\n' > "$tmp/src/rollback/r.c"; expect FAIL "up or across"
tree; printf '#include "a.h"\n' > "$tmp/src/base/b.c"; expect FAIL "must name its folder"
tree; printf '#include "tempo/session.h"\n' > "$tmp/src/wire/w.c"; expect FAIL "includes public tempo/session.h (layer 6): up"
tree; printf '#include "tempo/session.h"\n' > "$tmp/src/rollback/r.h"; expect FAIL "rollback/ (layer 3) includes public tempo/session.h"
tree; printf '#include "tempo/session.h"\n' > "$tmp/include/tempo/config.h"; expect FAIL "tempo/config.h (layer 3) includes public tempo/session.h"
tree; printf '#include "rollback/r.h"\n' > "$tmp/include/tempo/config.h"; expect FAIL "public header includes internal"
tree; : > "$tmp/include/tempo/newthing.h"; printf '#include "tempo/base.h"\n' > "$tmp/include/tempo/newthing.h"; expect FAIL "tempo/newthing.h has no layer"
tree; printf '#include "tempo/newthing.h"\n' > "$tmp/src/session/s.c"; expect FAIL "public header with no layer"
tree; printf '#include "wire/b.h"\n' > "$tmp/src/wire/a.h"; printf '#include "wire/a.h"\n' > "$tmp/src/wire/b.h"
expect FAIL "include cycle"

tree
printf '#include "tempo/base.h"\n' > "$tmp/include/tempo/rng.h"; printf '#include "tempo/rng.h"\n' > "$tmp/include/tempo/base.h"
expect FAIL "include cycle through tempo/"

# One folder over a quarter of the lines: refused until the doc says why.
tree; printf '#include "tempo/base.h"\n' > "$tmp/src/base/a.c"
i=0; while [ $i -lt 60 ]; do echo "int x$i;"; i=$((i + 1)); done > "$tmp/src/wire/big.c"
expect FAIL "src/wire/ holds 90 of src/'s .* lines, over a quarter"
mkdir -p "$tmp/docs"; echo "Over a quarter: wire/ because it is the test's." > "$tmp/docs/ARCHITECTURE.md"
expect PASS ""
rm -rf "$tmp/docs"

# The real tree passes, and fails once one upward include is planted in it.
rm -rf "$tmp/src" "$tmp/include"
real=$(cd "$(dirname "$check")/.." && pwd)
cp -R "$real/src" "$real/include" "$real/docs" "$tmp/"
expect PASS ""
printf '#include "tempo/session.h"\n' >> "$tmp/src/rollback/sync.h"; expect FAIL "rollback/ (layer 3) includes public tempo/session.h"
rm -rf "$tmp/src" "$tmp/include" "$tmp/docs"; cp -R "$real/src" "$real/include" "$real/docs" "$tmp/"
printf '#include "tempo/session.h"\n' >> "$tmp/include/tempo/config.h"; expect FAIL "tempo/config.h (layer 3) includes public tempo/session.h"

[ $fail -eq 0 ] && echo "layers_selftest: every kind of violation is caught"
exit $fail
