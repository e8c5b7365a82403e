#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo-sim --mode client-server: two clients across the Atlantic with
# replay answer their inputs on the same tick (input-to-response 0, no
# snap-back) and end on the server's state; a dumb client answers a round
# trip late and never corrects; the same run twice gives the same numbers;
# --compare reconciliation prints its table, dumb, none and replay in that
# order, each visible correction told by the piece it moved (with replay
# none moves the client's own paddle; with several clients others' pieces
# and the ball do move; a lone client sees none); the client-server
# scenario files run; the report has its charts;
# options this mode cannot honour are refused with exit 2.
# usage: sim_client_server.sh <tempo-sim> <scenarios dir> <work dir>
set -u
sim=$1
scenarios=$2
dir=$3
mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
# The first "key": value in a JSON file (the match's totals come before the
# per-client list).
value() { sed -n "s/^ *\"$1\": \\(.*\\),\\{0,1\\}$/\\1/p" "$2" | sed 's/,$//' | head -n 1; }

# 1. Replay: every input shows on the tick it was given, nothing snaps
# back, both clients present the server's state once the bots hold still.
run="--mode client-server --clients 2 --profile transatlantic --frames 900 --seed 3"
"$sim" $run --quiet --json "$dir/replay.json" || fail "replay run did not exit 0"
[ "$(value game "$dir/replay.json")" = '"pong"' ] || fail "two clients play $(value game "$dir/replay.json"), not Pong"
[ "$(value connected "$dir/replay.json")" = 2 ] || fail "replay: not both clients connected"
[ "$(value response_ticks_mean "$dir/replay.json")" = 0 ] || fail "replay: response mean $(value response_ticks_mean "$dir/replay.json"), expected 0"
[ "$(value response_ticks_max "$dir/replay.json")" = 0 ] || fail "replay: response max $(value response_ticks_max "$dir/replay.json"), expected 0"
[ "$(value snapbacks "$dir/replay.json")" = 0 ] || fail "replay: snap-backs"
[ "$(value clients_agreeing "$dir/replay.json")" = 2 ] || fail "replay: the clients do not agree with the server"
[ "$(grep -c '"agrees": true' "$dir/replay.json")" -eq 2 ] || fail "replay: per-client agreement missing"
[ "$(value problem "$dir/replay.json")" = null ] || fail "replay: problem $(value problem "$dir/replay.json")"
[ "$(grep -c '"agreement": "meets"' "$dir/replay.json")" -eq 1 ] || fail "replay: agreement verdict"
changes=$(sed -n 's/^ *"input_changes": \([0-9]*\),$/\1/p' "$dir/replay.json" | head -n 1)
[ "${changes:-0}" -ge 10 ] || fail "replay: client 0's bot changed its input only ${changes:-0} times"

# 2. The same match again: the same numbers (wall time and CPU aside).
"$sim" $run --quiet --json "$dir/replay2.json" || fail "second replay run did not exit 0"
grep -v 'wall_seconds\|cpu_us' "$dir/replay.json" >"$dir/a.txt"
grep -v 'wall_seconds\|cpu_us' "$dir/replay2.json" >"$dir/b.txt"
cmp -s "$dir/a.txt" "$dir/b.txt" || fail "the same seed gave other numbers: $(diff "$dir/a.txt" "$dir/b.txt" | head -n 5)"

# 3. Dumb: a response takes at least a round trip (80 ms: 5 ticks; the
# client's lead comes on top) and the client never predicts, so it has
# nothing to correct or replay.
"$sim" $run --reconcile dumb --quiet --json "$dir/dumb.json" || fail "dumb run did not exit 0"
mean=$(value response_ticks_mean "$dir/dumb.json")
awk -v m="$mean" 'BEGIN { exit !(m >= 5 && m <= 30) }' || fail "dumb: response mean $mean, expected 5..30 ticks"
[ "$(value visible_corrections "$dir/dumb.json")" = 0 ] || fail "dumb: visible corrections"
[ "$(value resim_frames "$dir/dumb.json")" = 0 ] || fail "dumb: resimulated ticks"
[ "$(value snapbacks "$dir/dumb.json")" = 0 ] || fail "dumb: snap-backs"
[ "$(value clients_agreeing "$dir/dumb.json")" = 2 ] || fail "dumb: the clients do not agree with the server"

# 4. --compare reconciliation: one table, three rows per client count in
# order (1, 2 and 4 clients when --clients is not given), and the JSON.
cell() { # table, clients, reconcile, column (1 = clients) -> value
    awk -F'|' -v n="$2" -v m="$3" -v c="$4" '{ a = $2; b = $4; gsub(/ /, "", a); gsub(/ /, "", b);
        if (a == n && b == m) { v = $(c + 1); gsub(/ /, "", v); print v } }' "$1"
}
crun="--mode client-server --profile transatlantic --frames 900 --seed 3"
"$sim" $crun --compare reconciliation --json "$dir/compare.json" >"$dir/compare.txt" 2>/dev/null ||
    fail "--compare reconciliation did not exit 0"
grep -q '^| clients | game | reconcile | input-to-response ticks (mean) |' "$dir/compare.txt" || fail "no compare table"
[ "$(grep -c '^| [124] | [a-z]* | \(dumb\|none\|replay\) |' "$dir/compare.txt")" -eq 9 ] || fail "not nine rows"
[ "$(grep '^| [124] |' "$dir/compare.txt" | cut -d'|' -f2,4 | tr -d ' |\n')" = \
    1dumb1none1replay2dumb2none2replay4dumb4none4replay ] || fail "rows out of order"
for n in 1 2 4; do
    [ "$(cell "$dir/compare.txt" $n replay 4)" = 0.00 ] || fail "$n clients, replay: response not 0"
    [ "$(cell "$dir/compare.txt" $n replay 7)" = 0.0 ] || fail "$n clients, replay: its own piece was corrected"
    own=$(cell "$dir/compare.txt" $n none 7)
    awk -v v="$own" 'BEGIN { exit !(v > 0) }' || fail "$n clients, none: no correction of its own piece seen"
done
[ "$(cell "$dir/compare.txt" 1 replay 6)" = 0.0 ] || fail "1 client, replay: corrections with nobody else to mispredict"
for n in 2 4; do
    others=$(cell "$dir/compare.txt" $n replay 10)
    awk -v v="$others" 'BEGIN { exit !(v > 0) }' || fail "$n clients, replay: no correction of the others seen"
done
[ "$(grep -c '"reconcile":' "$dir/compare.json")" -eq 9 ] || fail "compare JSON: not nine rows"
"$sim" $run --compare reconciliation >"$dir/compare2.txt" 2>/dev/null || fail "--compare with --clients did not exit 0"
[ "$(grep -c '^| 2 | pong | \(dumb\|none\|replay\) |' "$dir/compare2.txt")" -eq 3 ] || fail "--clients 2: not three rows"

# 5. The client-server scenario files run; a file's mode reads back.
for f in "$scenarios"/cs-*.scenario; do
    name=$(basename "$f" .scenario)
    "$sim" --scenario "$f" --frames 600 --quiet --json "$dir/$name.json" || fail "$name did not exit 0"
    [ "$(value mode "$dir/$name.json")" = '"client-server"' ] || fail "$name: not a client-server match"
    [ "$(value problem "$dir/$name.json")" = null ] || fail "$name: $(value problem "$dir/$name.json")"
    "$sim" --scenario "$f" --print-scenario | grep -q '^mode client-server$' || fail "$name: mode not written back"
done

# 6. Sixty-four clients of the built-in game connect and agree.
"$sim" --mode client-server --clients 64 --game walkers --profile broadband --frames 300 --quiet \
    --json "$dir/many.json" || fail "64 clients did not exit 0"
[ "$(value connected "$dir/many.json")" = 64 ] || fail "64 clients: $(value connected "$dir/many.json") connected"
[ "$(value clients_agreeing "$dir/many.json")" = 64 ] || fail "64 clients: not all agree"

# 7. The report: the client-server charts, and the verdicts.
"$sim" $run --frames 300 --quiet --report "$dir/report.html" || fail "report run did not exit 0"
for id in chart-lead chart-dilation chart-corrections chart-late chart-bandwidth; do
    grep -q "id=\"$id\"" "$dir/report.html" || fail "report: no $id"
done
grep -q '<svg id="chart-lead"' "$dir/report.html" && grep -q 'Verdicts' "$dir/report.html" ||
    fail "report: no verdicts"

# 8. What this mode refuses: exit 2 and a message.
refused() { # refused <what> <options...>
    what=$1
    shift
    "$sim" "$@" --quiet >/dev/null 2>"$dir/err.txt"
    [ $? -eq 2 ] || fail "$what was not refused with exit 2"
    [ -s "$dir/err.txt" ] || fail "$what: no message"
}
refused "--clients 65" --mode client-server --clients 65
refused "--compare timesync" --mode client-server --compare timesync
refused "--compare reconciliation in p2p" --players 2 --compare reconciliation
refused "--drop-peer" --mode client-server --drop-peer 1@60
refused "--link to a client that is not there" --mode client-server --clients 2 --link 0-5:mobile
refused "walkers with 65 players" --mode client-server --game walkers --clients 65
refused "--csv" --mode client-server --csv "$dir/x.csv"

echo "sim_client_server: ok"
