#!/bin/sh
# SPDX-License-Identifier: MIT
# layers_selftest.sh — layers.sh fails on each kind of violation it names
# (an include up, across, without a folder, of the session API below it, and
# a cycle) and passes on a clean tree. Usage: layers_selftest.sh LAYERS_SH
set -u
check=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

tree() { rm -rf "$tmp/src"; mkdir -p "$tmp/src/base" "$tmp/src/wire" "$tmp/src/rollback" "$tmp/src/timing" "$tmp/src/session"; }
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
expect PASS ""

tree; printf '#include "session/s.h"\n' > "$tmp/src/base/a.c"; expect FAIL "up or across"
tree; printf '#include "timing/t.h"\n' > "$tmp/src/rollback/r.c"; expect FAIL "up or across"
tree; printf '#include "a.h"\n' > "$tmp/src/base/b.c"; expect FAIL "must name its folder"
tree; printf '#include "tempo/session.h"\n' > "$tmp/src/wire/w.c"; expect FAIL "below the session API"
tree; printf '#include "wire/b.h"\n' > "$tmp/src/wire/a.h"; printf '#include "wire/a.h"\n' > "$tmp/src/wire/b.h"
expect FAIL "include cycle"

[ $fail -eq 0 ] && echo "layers_selftest: every kind of violation is caught"
exit $fail
