#!/bin/sh
# SPDX-License-Identifier: MIT
# Replays of real matches: two tempo-arena peers over UDP on loopback each
# record the match (--record); each file then plays back (--replay) to the
# very final line the live match printed, every checksum in it equal, at
# full speed and at --speed; a shorter --frames stops early; a truncated
# or damaged file is refused with a reason, and --replay refuses network
# options.
# usage: arena_replay.sh <tempo-arena> <work dir>
set -u
arena=$1
dir=$2
mkdir -p "$dir"
fail() { echo "FAIL: $*"; for f in "$dir"/*.out "$dir"/*.err; do [ -s "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
. "$(dirname "$0")/support/ports.sh"
reserve_ports || exit 1
base=$ports
frames=900

"$arena" --players 2 --player 0 --port $base --peer 1=127.0.0.1:$((base + 1)) --frames $frames \
    --seed 5 --timeout 60 --record "$dir/p0.rep" > "$dir/live0.out" 2> "$dir/live0.err" &
p0=$!
"$arena" --players 2 --player 1 --port $((base + 1)) --peer 0=127.0.0.1:$base --frames $frames \
    --seed 5 --timeout 60 --record "$dir/p1.rep" > "$dir/live1.out" 2> "$dir/live1.err" || fail "peer 1 failed"
wait $p0 || fail "peer 0 failed"
live=$(grep '^final ' "$dir/live0.out")
[ -n "$live" ] && [ "$live" = "$(grep '^final ' "$dir/live1.out")" ] || fail "the live peers disagree"
echo "live match: $live; files $(wc -c < "$dir/p0.rep") and $(wc -c < "$dir/p1.rep") bytes"
cmp -s "$dir/p0.rep" "$dir/p1.rep" || fail "the two peers recorded different files"

for f in p0 p1; do
    "$arena" --replay "$dir/$f.rep" > "$dir/$f.out" 2> "$dir/$f.err" || fail "$f.rep did not play"
    [ "$(cat "$dir/$f.out")" = "$live" ] || fail "$f.rep ended '$(cat "$dir/$f.out")', live '$live'"
    grep -q "every checksum equal" "$dir/$f.err" || fail "$f.rep: no checksum report"
done
echo "  both files replay to it: $(cat "$dir/p0.err")"

"$arena" --replay "$dir/p0.rep" --speed 1024 > "$dir/fast.out" 2>&1 || fail "--speed 1024 failed"
grep -qx "$live" "$dir/fast.out" || fail "--speed 1024 ended differently"
"$arena" --replay "$dir/p0.rep" --frames 300 > "$dir/short.out" 2>&1 || fail "--frames 300 failed"
grep -q "^final frame=300 " "$dir/short.out" || fail "--frames 300 did not stop at 300"
echo "  --speed 1024 (4 frames a tick) and --frames 300 play"

head -c 1000 "$dir/p0.rep" > "$dir/cut.rep"
"$arena" --replay "$dir/cut.rep" > /dev/null 2> "$dir/cut.err" && fail "a truncated file played"
grep -q "cut.rep: " "$dir/cut.err" || fail "a truncated file gave no reason"
echo "  truncated: $(cat "$dir/cut.err")"
# one byte of the inputs changed
size=$(wc -c < "$dir/p0.rep")
{ head -c $((size - 40)) "$dir/p0.rep"; printf '\377'; tail -c 39 "$dir/p0.rep"; } > "$dir/bad.rep"
"$arena" --replay "$dir/bad.rep" > /dev/null 2> "$dir/bad.err" && fail "a damaged file played"
[ -s "$dir/bad.err" ] || fail "a damaged file gave no reason"
echo "  damaged: $(head -n 1 "$dir/bad.err")"
msg=$("$arena" --replay "$dir/p0.rep" --port 7000 2>&1); rc=$?
[ $rc -eq 2 ] || fail "--replay with --port exited $rc, not 2"
echo "$msg" | grep -q "no --players, --player" || fail "--replay --port said '$msg'"
echo "arena_replay: ok"
