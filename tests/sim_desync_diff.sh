#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo-sim --desync-at: the planted desync's diff names the changed field
# (ships[0].reserved[0], which peer 1 sets to 0xA5 = 165) and the check frame
# after the planted frame, in the terminal summary and in the report.
# usage: sim_desync_diff.sh <tempo-sim> <work dir>
set -u
sim=$1
dir=$2
mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }

"$sim" --players 2 --frames 1200 --desync-at 600 --report "$dir/report.html" > "$dir/out.txt" 2>&1
grep -q '^desync diff: peer 0 vs peer 1 at frame 660: ships\[0\]\.reserved\[0\] 0 vs 165$' "$dir/out.txt" ||
    fail "no diff line for peer 0 naming the field; got: $(grep 'desync diff' "$dir/out.txt")"
grep -q '^desync diff: peer 1 vs peer 0 at frame 660: ships\[0\]\.reserved\[0\] 165 vs 0$' "$dir/out.txt" ||
    fail "no diff line for peer 1 naming the field"
grep -q 'desync diff: peer 0 vs peer 1 at frame 660: ships\[0\]\.reserved\[0\] 0 vs 165' "$dir/report.html" ||
    fail "the report does not show the diff"

# without a planted desync there is no diff line
"$sim" --players 2 --frames 600 --report "$dir/clean.html" > "$dir/clean.txt" 2>&1
grep -q 'desync diff' "$dir/clean.txt" && fail "a diff line without a desync"
echo "ok"
