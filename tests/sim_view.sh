#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo-sim --compare interpolation | reckoning | lagcomp: each prints its
# table with every row, the same twice, writes JSON and a report, and the
# numbers say what the modules promise and what the comparison must show:
# on broadband the adaptive playout delay never extrapolates more than 1 %
# of the time and Pongbat's buffer is on; on transatlantic Pongbat's rule
# switches its buffer off; dead reckoning aged by the client's clock
# estimate is within a few centimetres of the truth now (interpolation,
# 100 ms and more behind, is not, but fits the truth at its own latency);
# tempo's long blend and plan make no jump; rewinding, by the client's view
# or by the server's estimate, confirms nearly every shot that hit on the
# shooter's screen while not rewinding misses many (a shooter that draws
# the bots dead reckoned misses few), and only rewinding confirms shots at
# targets already in cover.
# usage: sim_view.sh <tempo-sim> <work dir>
set -u
sim=$1
dir=$2
mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
col() { # table file, first cells ("a|b" for two), column number (1 = the first cell) -> value
    awk -F'|' -v row="$2" -v c="$3" '{ l = $2; gsub(/^ +| +$/, "", l); m = $3; gsub(/^ +| +$/, "", m);
        if (l == row || l "|" m == row) { v = $(c + 1); gsub(/ |%/, "", v); print v } }' "$1"
}
atleast() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

"$sim" --compare interpolation --profile broadband --frames 1800 --seed 3 \
    --json "$dir/interp.json" --report "$dir/interp.html" > "$dir/interp.txt" || fail "interpolation failed"
"$sim" --compare interpolation --profile broadband --frames 1800 --seed 3 > "$dir/interp2.txt"
cmp -s "$dir/interp.txt" "$dir/interp2.txt" || fail "the same seed printed two tables"
for row in "fixed 2 ticks" "fixed 6 ticks" pongbat adaptive "adaptive, 10 % late"; do
    grep -q "^| broadband | $row |" "$dir/interp.txt" || fail "no row '$row'"
done
ext=$(col "$dir/interp.txt" "broadband|adaptive" 8)
atleast 1.0 "$ext" || fail "adaptive extrapolated $ext % of the time on broadband"
[ "$(col "$dir/interp.txt" "broadband|pongbat" 11)" = 100 ] || fail "Pongbat's buffer off on broadband"
grep -q '"variant": "adaptive"' "$dir/interp.json" || fail "JSON lacks the rows"
grep -q "<svg" "$dir/interp.html" || fail "the report has no chart"
"$sim" --compare interpolation --profile transatlantic --frames 1800 --seed 3 > "$dir/interp3.txt"
[ "$(col "$dir/interp3.txt" "transatlantic|pongbat" 11)" = 0 ] || fail "Pongbat's buffer on across the Atlantic"
echo "interpolation: adaptive extrapolates $ext % on broadband; Pongbat's buffer off on transatlantic"

"$sim" --compare reckoning --profile broadband --frames 1800 --seed 3 > "$dir/reckon.txt" || fail "reckoning failed"
for order in 1 2; do
    for c in "blend 100 ms+" "plan 100 ms+"; do
        j=$(col "$dir/reckon.txt" "order $order, $c" 7)
        atleast 1.0 "$j" || fail "order $order, $c: $j jumps a minute on broadband"
    done
    s=$(col "$dir/reckon.txt" "order $order, snap" 7)
    atleast "$s" 1 || fail "snap made no jump: the jump count cannot see anything"
done
now=$(col "$dir/reckon.txt" "order 2, snap" 2)
atleast 3.0 "$now" || fail "order 2, snap: $now cm off the truth now on broadband"
inow=$(col "$dir/reckon.txt" "interpolation, adaptive" 2)
ilat=$(col "$dir/reckon.txt" "interpolation, adaptive" 5)
ishape=$(col "$dir/reckon.txt" "interpolation, adaptive" 6)
atleast "$inow" 10 && atleast "$ilat" 25 && atleast 1.0 "$ishape" ||
    fail "interpolation: $inow cm now, latency $ilat ms, $ishape cm at it"
echo "reckoning: order 2 snap $now cm now; interpolation $inow cm now, $ishape cm at its $ilat ms"

"$sim" --compare lagcomp --frames 14400 --seed 3 > "$dir/lag.txt" || fail "lagcomp failed"
for ms in 50 100 150; do
    off=$(col "$dir/lag.txt" "$ms ms|no rewind" 9)
    for p in "server estimate" "client's view"; do
        on=$(col "$dir/lag.txt" "$ms ms|$p" 9)
        atleast "$on" 98.0 && awk -v a="$on" -v b="$off" 'BEGIN { exit !(b < a - 20.0) }' ||
            fail "$ms ms: $on % confirmed by $p, $off % not rewound"
    done
    [ "$(col "$dir/lag.txt" "$ms ms|no rewind" 8)" = 0 ] || fail "$ms ms: a false hit without rewinding"
    [ "$(col "$dir/lag.txt" "$ms ms|no rewind, reckoned" 8)" = 0 ] || fail "$ms ms: a false hit, reckoned"
    reck=$(col "$dir/lag.txt" "$ms ms|no rewind, reckoned" 9)
    awk -v a="$reck" -v b="$off" 'BEGIN { exit !(a > b + 20.0) }' || fail "$ms ms: reckoned $reck %, not $off %"
    echo "lagcomp $ms ms: $(col "$dir/lag.txt" "$ms ms|client's view" 9) % confirmed by the client's view, $off % not rewound"
done
false_hits=$(grep "client's view" "$dir/lag.txt" | awk -F'|' '{ s += $9 } END { print s }')
atleast "$false_hits" 1 || fail "rewinding confirmed no shot at a target in cover: the count sees nothing"
echo "sim_view: ok"
