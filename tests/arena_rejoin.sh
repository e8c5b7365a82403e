#!/bin/sh
# SPDX-License-Identifier: MIT
# Rejoin over real UDP on loopback: three tempo-arena peers; one process is
# killed (kill -9) 3 s in and started again with --rejoin 4 s later. The
# other two drop it, keep playing, and take it back; all three must print
# the same "final frame=F checksum=..." line, and the restarted one must
# have been sent a state (its log names the rejoin). Then the same sealed:
# the restarted process comes back at key epoch 1 (--rejoin-epoch).
# usage: arena_rejoin.sh <tempo-arena> <work dir>
set -u
arena=$1
dir=$2
mkdir -p "$dir"
fail() { echo "FAIL: $*"; for f in "$dir"/*.out "$dir"/*.err; do [ -s "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
. "$(dirname "$0")/support/ports.sh"
reserve_ports || exit 1
base=$ports
frames=900

peer() { # index, extra arguments...
    i=$1; shift
    peers=""
    for j in 0 1 2; do
        [ "$j" = "$i" ] || peers="$peers --peer $j=127.0.0.1:$((base + j))"
    done
    # shellcheck disable=SC2086
    exec "$arena" --headless --players 3 --player "$i" --port $((base + i)) $peers \
        --frames $frames --seed 5 --input-delay 1 --timeout 60 --rejoin-window 30000 "$@"
}

match() { # label, extra arguments for every peer...
    label=$1; shift
    peer 0 "$@" > "$dir/$label-p0.out" 2> "$dir/$label-p0.err" &
    p0=$!
    peer 1 "$@" > "$dir/$label-p1.out" 2> "$dir/$label-p1.err" &
    p1=$!
    peer 2 "$@" > "$dir/$label-p2-first.out" 2> "$dir/$label-p2-first.err" &
    p2=$!
    sleep 3
    kill -9 "$p2" 2>/dev/null
    wait "$p2" 2>/dev/null
    sleep 4
    peer 2 "$@" --rejoin --rejoin-epoch 1 > "$dir/$label-p2.out" 2> "$dir/$label-p2.err" &
    p2=$!
    for p in $p0 $p1 $p2; do wait "$p" || fail "$label: a peer exited with an error"; done
    grep -q "rejoined: player 2 plays again from frame" "$dir/$label-p2.err" ||
        fail "$label: the restarted peer never rejoined"
    grep -q "rejoined: player 2 plays again from frame" "$dir/$label-p0.err" ||
        fail "$label: peer 0 saw no rejoin"
    first=$(grep '^final ' "$dir/$label-p0.out")
    [ -n "$first" ] || fail "$label: no final line"
    for f in "$dir/$label-p1.out" "$dir/$label-p2.out"; do
        [ "$(grep '^final ' "$f")" = "$first" ] || fail "$label: the peers disagree"
    done
    echo "  $label: $first on all three, peer 2 killed and restarted"
    base=$((base + 3))
}

match open
key=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff
match sealed --key $key
