#!/bin/sh
# SPDX-License-Identifier: MIT
# A WebSocket member beside UDP members: tempo-relay with --ws-port, two
# tempo-arena processes over UDP and one over a WebSocket (--relay
# ws://..., the path a browser takes), sealed with tokens from tempo-token
# exactly as UDP members are; all three print the same final line, and the
# relay's last lines count the WebSocket member's datagrams both ways.
# usage: arena_ws.sh <tempo-arena> <tempo-relay> <tempo-token> <work dir>
set -u
arena=$1
relay=$2
token=$3
dir=$4
rm -rf "$dir"
mkdir -p "$dir"
fail() { echo "FAIL: $*"; for f in "$dir"/*.out "$dir"/*.err; do [ -s "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
# ports of our own, clear of parallel runs (tests/support/ports.sh)
. "$(dirname "$0")/support/ports.sh"
reserve_ports || exit 1
port=$ports
frames=240

"$token" --key-file "$dir/backend.key" --new-key > /dev/null || fail "tempo-token --new-key"
for try in 1 2 3 4 5; do
    "$relay" --port $port --ws-port $((port + 1)) --bind 127.0.0.1 --key-file "$dir/backend.key" \
        --seconds 40 --stats-seconds 60 > "$dir/relay.out" 2> "$dir/relay.err" &
    relay_pid=$!
    sleep 0.3
    kill -0 $relay_pid 2>/dev/null && break
    port=$((port + 7))
done
kill -0 $relay_pid 2>/dev/null || fail "tempo-relay did not start: $(cat "$dir/relay.err")"
for i in 0 1 2; do
    "$token" --key-file "$dir/backend.key" --client-id $((i + 1)) --connect 127.0.0.1:$port \
        --match 11 --players 3 --player $i --out "$dir/t$i" > /dev/null || fail "minting token $i"
done
pids=""
for i in 0 1 2; do
    where=127.0.0.1:$port
    [ $i = 2 ] && where=ws://127.0.0.1:$((port + 1))
    "$arena" --players 3 --player $i --relay $where --token-file "$dir/t$i" --frames $frames \
        --seed 5 --connect-timeout 15 > "$dir/m$i.out" 2> "$dir/m$i.err" &
    pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "a member exited with an error"; done
want=$(cat "$dir/m0.out")
echo "$want" | grep -q "^final frame=$frames checksum=[0-9a-f]\{16\}$" || fail "member 0 printed '$want'"
for i in 1 2; do
    [ "$(cat "$dir/m$i.out")" = "$want" ] || fail "member $i printed '$(cat "$dir/m$i.out")', member 0 '$want'"
done
grep -q "sealed: datagrams authenticated and encrypted with the token's keys" "$dir/m2.err" ||
    fail "the WebSocket member was not sealed"
grep -q "running: the relay started the match" "$dir/m2.err" || fail "the WebSocket member never ran"
kill $relay_pid
wait $relay_pid
line=$(grep '^final ws_' "$dir/relay.out") || fail "the relay printed no WebSocket line"
echo "$line" | grep -q " ws_accepted=1 " || fail "the relay did not count one WebSocket member: $line"
echo "$line" | grep -q " ws_in=[1-9][0-9]\{2,\} ws_out=[1-9][0-9]\{2,\} " ||
    fail "the WebSocket member's datagrams did not flow both ways: $line"
echo "$line" | grep -q " ws_refused=0 " || fail "the relay refused something: $line"
echo "  $want on all three members (two UDP, one WebSocket); relay: $line"
echo "arena_ws: ok"
