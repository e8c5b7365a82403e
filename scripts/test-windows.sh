#!/bin/sh
# SPDX-License-Identifier: MIT
# test-windows.sh — build tempo for Windows with mingw-w64 and run every
# cmocka unit test under Wine.
#
#   sh scripts/test-windows.sh [BUILD_DIR [JOBS]]     (make test-windows)
#
# Configures BUILD_DIR (default build/windows) with
# cmake/mingw-w64-x86_64.cmake, warnings as errors, builds the library,
# tools, demo and tests, then runs each tests/test_*.exe under wine64 in a
# Wine prefix of its own (BUILD_DIR/wineprefix, made on first use; the
# user's ~/.wine is never touched). Prints one line per test program, the
# output of failed ones in full, and the test counts; exits 1 on any failure.
# Needs: sh scripts/bootstrap.sh windows.
set -u
dir=${1:-build/windows}
jobs=${2:-$(nproc 2>/dev/null || echo 2)}
top=$(cd "$(dirname "$0")/.." && pwd)

wine=""
for w in wine64 /usr/lib/wine/wine64 wine; do
    if command -v "$w" >/dev/null 2>&1; then wine=$w; break; fi
done
if [ -z "$wine" ] || ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
    echo "test-windows: needs mingw-w64 and wine64: sh scripts/bootstrap.sh windows" >&2
    exit 1
fi

start=$(date +%s)
cmake -S "$top" -B "$dir" -Wno-dev --log-level=WARNING \
    -DCMAKE_TOOLCHAIN_FILE="$top/cmake/mingw-w64-x86_64.cmake" \
    -DCMAKE_BUILD_TYPE=Debug -DTEMPO_WERROR=ON -DTEMPO_BUILD_BENCH=ON >/dev/null ||
    exit 1
if ! cmake --build "$dir" -j "$jobs" >"$dir.log" 2>&1; then
    cat "$dir.log"
    exit 1
fi
built=$(date +%s)

WINEPREFIX=$(cd "$dir" && pwd)/wineprefix
WINEDEBUG=-all
export WINEPREFIX WINEDEBUG
if [ ! -d "$WINEPREFIX" ]; then
    "$wine" wineboot -i >/dev/null 2>&1 # first start makes the prefix (~10 s)
fi

programs=0 bad=0 passed=0 failed=0 skipped=0
out=$(mktemp)
for exe in "$dir"/tests/test_*.exe; do
    name=$(basename "$exe" .exe)
    t0=$(date +%s)
    timeout 600 "$wine" "$exe" >"$out" 2>&1
    rc=$?
    t1=$(date +%s)
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\..*/\1/p' "$out" | tail -n 1)
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test(s)\..*/\1/p' "$out" | tail -n 1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s)\..*/\1/p' "$out" | tail -n 1)
    p=${p:-0} s=${s:-0} f=${f:-0}
    [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1 # a crash or timeout counts once
    programs=$((programs + 1))
    passed=$((passed + p)) skipped=$((skipped + s)) failed=$((failed + f))
    if [ "$rc" -eq 0 ] && [ "$f" -eq 0 ]; then
        printf '  ok    %-20s %4d passed %2d skipped  %3d s\n' "$name" "$p" "$s" $((t1 - t0))
    else
        bad=$((bad + 1))
        printf '  FAIL  %-20s %4d passed %2d failed (exit %d)  %3d s\n' "$name" "$p" "$f" "$rc" $((t1 - t0))
        cat "$out"
    fi
done
rm -f "$out"
end=$(date +%s)
echo "test-windows: $programs programs under $wine, $((built - start)) s to build, $((end - built)) s to run"
echo "test-windows: $passed passed, $failed failed, $skipped skipped"
[ "$bad" -eq 0 ] && [ "$programs" -gt 0 ]
