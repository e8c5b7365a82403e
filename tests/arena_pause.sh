#!/bin/sh
# SPDX-License-Identifier: MIT
# A paused machine over real UDP on loopback: three sealed tempo-arena
# peers; one process is stopped (kill -STOP) 2 s in for 4 s, past the 3 s
# disconnect timeout, then continued. The other two drop it and play on;
# on waking it must say that it was dropped, come back by itself (every
# peer has --rejoin-window) and end on the same "final frame=F
# checksum=..." line as the two others, never on a line of its own.
# usage: arena_pause.sh <tempo-arena> <work dir>
set -u
arena=$1
dir=$2
mkdir -p "$dir"
fail() { echo "FAIL: $*"; for f in "$dir"/*.out "$dir"/*.err; do [ -s "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
. "$(dirname "$0")/support/ports.sh"
reserve_ports || exit 1
base=$ports
key=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff

peer() { # index
    i=$1
    peers=""
    for j in 0 1 2; do
        [ "$j" = "$i" ] || peers="$peers --peer $j=127.0.0.1:$((base + j))"
    done
    # shellcheck disable=SC2086
    exec "$arena" --headless --players 3 --player "$i" --port $((base + i)) $peers \
        --frames 480 --seed 9 --input-delay 1 --timeout 40 --rejoin-window 30000 --key $key
}

peer 0 > "$dir/p0.out" 2> "$dir/p0.err" &
p0=$!
peer 1 > "$dir/p1.out" 2> "$dir/p1.err" &
p1=$!
peer 2 > "$dir/p2.out" 2> "$dir/p2.err" &
p2=$!
sleep 2
kill -STOP "$p2"
sleep 4
kill -CONT "$p2"
for p in $p0 $p1 $p2; do wait "$p" || fail "a peer exited with an error"; done
grep -q "dropped: the others dropped this machine at frame" "$dir/p2.err" ||
    fail "the paused peer did not say it was dropped"
grep -q "rejoined: player 2 plays again from frame" "$dir/p2.err" ||
    fail "the paused peer did not come back"
grep -q "rejoined: player 2 plays again from frame" "$dir/p0.err" || fail "peer 0 saw no rejoin"
first=$(grep '^final ' "$dir/p0.out")
[ -n "$first" ] || fail "no final line"
for f in "$dir/p1.out" "$dir/p2.out"; do
    [ "$(grep '^final ' "$f")" = "$first" ] || fail "the peers disagree"
done
echo "arena_pause: $first on all three, peer 2 stopped for 4 s and back by itself"
