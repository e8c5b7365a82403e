#!/bin/sh
# Real processes, real UDP on loopback: 2 and 4 tempo-arena peers, and a pair
# through tempo-netem's transatlantic profile. Every peer must print the same
# "final frame=F checksum=..." line.
# usage: arena_multiprocess.sh <tempo-arena> <tempo-netem> <work dir>
set -u
arena=$1
netem=$2
dir=$3
mkdir -p "$dir"
fail() { echo "FAIL: $*"; for f in "$dir"/*.out "$dir"/*.err; do [ -s "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
# A port range of our own, from the process id, to stay clear of parallel runs.
base=$((20000 + ($$ % 2000) * 10))
frames=240

same_final() { # files...
    first=$(grep '^final ' "$1")
    [ -n "$first" ] || return 1
    for f in "$@"; do [ "$(grep '^final ' "$f")" = "$first" ] || return 1; done
    echo "  $first"
}

run_mesh() { # number of peers
    n=$1
    pids=""
    for i in $(seq 0 $((n - 1))); do
        peers=""
        for j in $(seq 0 $((n - 1))); do
            [ "$j" = "$i" ] || peers="$peers --peer $j=127.0.0.1:$((base + j))"
        done
        # shellcheck disable=SC2086
        "$arena" --headless --players "$n" --player "$i" --port $((base + i)) $peers \
            --frames $frames --seed 11 --input-delay 1 --timeout 60 \
            > "$dir/mesh$n-$i.out" 2> "$dir/mesh$n-$i.err" &
        pids="$pids $!"
    done
    for p in $pids; do wait "$p" || fail "a peer of the $n-peer mesh exited with an error"; done
    files=""
    for i in $(seq 0 $((n - 1))); do files="$files $dir/mesh$n-$i.out"; done
    # shellcheck disable=SC2086
    same_final $files || fail "the $n peers disagree"
    base=$((base + n))
}

echo "2 peers on loopback:"
run_mesh 2
echo "4 peers on loopback:"
run_mesh 4

echo "2 peers through tempo-netem (transatlantic):"
a=$base; b=$((base + 1)); listen=$((base + 2)); up=$((base + 3))
"$netem" --listen 127.0.0.1:$listen --forward 127.0.0.1:$b --up 127.0.0.1:$up \
    --profile transatlantic --seed 3 --quiet > "$dir/netem.out" 2> "$dir/netem.err" &
netem_pid=$!
sleep 0.2
"$arena" --headless --players 2 --player 0 --port $a --peer 1=127.0.0.1:$listen \
    --frames $frames --seed 12 --auto-delay --timeout 90 > "$dir/far-0.out" 2> "$dir/far-0.err" &
p0=$!
"$arena" --headless --players 2 --player 1 --port $b --peer 0=127.0.0.1:$up \
    --frames $frames --seed 12 --auto-delay --timeout 90 > "$dir/far-1.out" 2> "$dir/far-1.err" &
p1=$!
wait $p0; r0=$?
wait $p1; r1=$?
kill "$netem_pid" 2>/dev/null
wait "$netem_pid" 2>/dev/null
[ $r0 -eq 0 ] && [ $r1 -eq 0 ] || fail "a peer behind tempo-netem exited with an error"
same_final "$dir/far-0.out" "$dir/far-1.out" || fail "the peers behind tempo-netem disagree"

"$arena" --players 2 >/dev/null 2>&1
[ $? -eq 2 ] || fail "a usage error did not exit 2"
echo "arena_multiprocess: ok"
