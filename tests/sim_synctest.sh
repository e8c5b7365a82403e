#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo-sim --synctest from the command line: clean run, planted bug caught at
# the right frame (both save policies), JSON keys, exit codes.
# usage: sim_synctest.sh <tempo-sim> <work dir>
set -u
sim=$1
dir=$2
mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
value() { sed -n "s/^ *\"$1\": \\(.*\\),\\{0,1\\}$/\\1/p" "$2" | sed 's/,$//'; }

"$sim" --synctest --frames 5000 --check-distance 7 --json "$dir/clean.json" --quiet
[ $? -eq 0 ] || fail "clean synctest did not exit 0"
[ "$(value mismatches "$dir/clean.json")" = 0 ] || fail "clean synctest reported mismatches"
[ "$(value first_mismatch_frame "$dir/clean.json")" = null ] || fail "first_mismatch_frame not null"
[ "$(value mode "$dir/clean.json")" = '"synctest"' ] || fail "mode key"
for k in players frames check_distance rollbacks resim_frames; do
    [ -n "$(value $k "$dir/clean.json")" ] || fail "missing key $k"
done
[ "$(value resim_frames "$dir/clean.json")" -gt 30000 ] || fail "too few resimulated frames"

for policy in every sparse; do
    for at in 1000 2345; do
        "$sim" --synctest --frames 5000 --check-distance 7 --save-policy $policy \
            --nondeterministic-at $at --json "$dir/bad.json" --quiet
        [ $? -eq 3 ] || fail "planted bug at $at ($policy) did not exit 3"
        f=$(value first_mismatch_frame "$dir/bad.json")
        [ "$f" -ge $at ] && [ "$f" -le $((at + 7)) ] || fail "mismatch frame $f not in [$at, $((at + 7))]"
    done
done

"$sim" --players 9 >/dev/null 2>&1
[ $? -eq 2 ] || fail "bad --players did not exit 2"
"$sim" --no-such-option >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown option did not exit 2"
echo "sim_synctest: ok"
