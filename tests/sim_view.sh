#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo-sim --compare interpolation | reckoning | lagcomp: each prints its
# table with every variant, the same twice, writes JSON and a report, and
# the numbers say what the modules promise on a broadband link: the
# adaptive playout delay never extrapolates more than 1 % of the time,
# blend and plan corrections make no jump, and rewinding confirms nearly
# every shot that hit on the shooter's screen while not rewinding loses
# many.
# usage: sim_view.sh <tempo-sim> <work dir>
set -u
sim=$1
dir=$2
mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
col() { # table file, row label, column number (1 = label) -> value
    awk -F'|' -v row="$2" -v c="$3" '{ l = $2; gsub(/^ +| +$/, "", l); if (l == row) { v = $(c + 1); gsub(/ |%/, "", v); print v } }' "$1"
}

"$sim" --compare interpolation --profile broadband --frames 1800 --seed 3 \
    --json "$dir/interp.json" --report "$dir/interp.html" > "$dir/interp.txt" || fail "interpolation failed"
"$sim" --compare interpolation --profile broadband --frames 1800 --seed 3 > "$dir/interp2.txt"
cmp -s "$dir/interp.txt" "$dir/interp2.txt" || fail "the same seed printed two tables"
for row in "fixed 2 ticks" pongbat adaptive "adaptive, 10 % late"; do
    grep -q "^| $row |" "$dir/interp.txt" || fail "no row '$row'"
done
ext=$(col "$dir/interp.txt" adaptive 7)
awk -v e="$ext" 'BEGIN { exit !(e <= 1.0) }' || fail "adaptive extrapolated $ext % of the time on broadband"
grep -q '"variant": "adaptive"' "$dir/interp.json" || fail "JSON lacks the rows"
grep -q "<svg" "$dir/interp.html" || fail "the report has no chart"
echo "interpolation: adaptive extrapolates $ext %"

"$sim" --compare reckoning --profile broadband --frames 1800 --seed 3 > "$dir/reckon.txt" || fail "reckoning failed"
for order in 1 2; do
    for c in blend plan; do
        j=$(col "$dir/reckon.txt" "order $order, $c" 5)
        [ "$j" = "0.0" ] || fail "order $order, $c: $j jumps a minute on broadband"
    done
    s=$(col "$dir/reckon.txt" "order $order, snap" 5)
    awk -v s="$s" 'BEGIN { exit !(s > 0) }' || fail "snap made no jump: the jump count cannot see anything"
done
echo "reckoning: blend and plan 0 jumps/min, snap $(col "$dir/reckon.txt" "order 2, snap" 5)"

"$sim" --compare lagcomp --frames 7200 --seed 3 > "$dir/lag.txt" || fail "lagcomp failed"
for ms in 50 100 150; do
    on=$(col "$dir/lag.txt" "$ms ms, rewound" 6)
    off=$(col "$dir/lag.txt" "$ms ms, not rewound" 6)
    awk -v a="$on" -v b="$off" 'BEGIN { exit !(a >= 99.0 && b < a - 20.0) }' ||
        fail "$ms ms: $on % confirmed rewound, $off % not"
    echo "lagcomp $ms ms: $on % confirmed rewound, $off % not"
done
echo "sim_view: ok"
