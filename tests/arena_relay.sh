#!/bin/sh
# SPDX-License-Identifier: MIT
# Three tempo-arena processes play one match through a real tempo-relay
# process over UDP on loopback, and all three print the same final line,
# even when one of them freezes for half a second and has to catch up;
# the relay's last line counts the match and its three members. Then the
# same sealed: a relay with a private key, each member with a token from
# tempo-token naming its match and player; and a member whose token has
# expired says so before it sends and gives up (exit 1), and the relay
# names the refusal on its stderr, once.
# usage: arena_relay.sh <tempo-arena> <tempo-relay> <tempo-token or -> <work dir>
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

# match NAME RELAY-PORT [per-member options, %i for the player] [freeze]:
# three members of a 3-player match, one player each, until frame $frames;
# with "freeze", member 2 is stopped for half a second once frames run, so
# it falls behind the relay's clock and has to catch up.
match() {
    name=$1 rport=$2 extra=$3 freeze=${4:-}
    pids=""
    for i in 0 1 2; do
        # shellcheck disable=SC2086
        "$arena" --players 3 --player $i --relay 127.0.0.1:$rport --frames $frames --seed 5 \
            --connect-timeout 15 $(echo "$extra" | sed "s/%i/$i/g") \
            > "$dir/$name-$i.out" 2> "$dir/$name-$i.err" &
        pids="$pids $!"
        last=$!
    done
    if [ "$freeze" = freeze ]; then
        for t in 1 2 3 4 5 6 7 8 9 10; do
            grep -q "running:" "$dir/$name-2.err" 2>/dev/null && break
            sleep 0.5
        done
        sleep 1
        kill -STOP $last
        sleep 0.5
        kill -CONT $last
    fi
    for p in $pids; do wait "$p" || fail "a member of $name exited with an error"; done
    want=$(cat "$dir/$name-0.out")
    echo "$want" | grep -q "^final frame=$frames checksum=[0-9a-f]\{16\}$" || fail "$name: member 0 printed '$want'"
    for i in 1 2; do
        [ "$(cat "$dir/$name-$i.out")" = "$want" ] || fail "$name: member $i printed '$(cat "$dir/$name-$i.out")', member 0 '$want'"
    done
    grep -q "running: the relay started the match" "$dir/$name-0.err" || fail "$name: no start through the relay"
    echo "  $name: $want, 3 members; $(grep 'relay:' "$dir/$name-0.err" | sed 's/^tempo-arena: //')"
}

# start_relay OUT [options]: tempo-relay on $port, or the next free port
# (other programs on this machine may hold one: up to 5 tries).
start_relay() {
    out=$1
    shift
    for try in 1 2 3 4 5; do
        "$relay" --port $port --seconds 30 --stats-seconds 60 "$@" > "$dir/$out.out" 2> "$dir/$out.err" &
        relay_pid=$!
        sleep 0.3
        kill -0 $relay_pid 2>/dev/null && return 0
        grep -q "cannot bind" "$dir/$out.err" || fail "tempo-relay did not start: $(cat "$dir/$out.err")"
        port=$((port + 7))
    done
    fail "no free port for tempo-relay: $(cat "$dir/$out.err")"
}

echo "unsealed, match 7, member 2 frozen for half a second:"
start_relay relay
match open $port "--match 7" freeze
grep -q "relay: .* inputs substituted ([1-9][0-9]* of ours)\|skipped [1-9]" "$dir/open-2.err" ||
    fail "the frozen member neither lost inputs to the relay nor skipped: $(grep 'relay:' "$dir/open-2.err")"
kill $relay_pid
wait $relay_pid
grep -q "^final .* matches=[01] members=[0-3] " "$dir/relay.out" || fail "the relay printed no final line"
grep -q "^stats\|^final" "$dir/relay.out" && echo "  relay: $(grep '^final' "$dir/relay.out" | cut -d' ' -f2-10)"

if [ "$token" = - ] || [ ! -x "$token" ]; then
    echo "arena_relay: ok (no tempo-token: the sealed match is skipped)"
    exit 0
fi
echo "sealed, with tokens:"
port=$((port + 1))
"$token" --key-file "$dir/backend.key" --new-key > /dev/null || fail "tempo-token --new-key"
start_relay srelay --bind 127.0.0.1 --key-file "$dir/backend.key"
for i in 0 1 2; do
    "$token" --key-file "$dir/backend.key" --client-id $((i + 1)) --connect 127.0.0.1:$port \
        --match 9 --players 3 --player $i --out "$dir/t$i" > /dev/null || fail "minting token $i"
done
"$token" --key-file "$dir/backend.key" --client-id 4 --connect 127.0.0.1:$port --match 9 \
    --players 3 --player 0 --expire-seconds 60 --now $(($(date +%s) - 120)) \
    --out "$dir/texpired" > /dev/null || fail "minting the expired token"
"$arena" --players 3 --player 0 --relay 127.0.0.1:$port --token-file "$dir/texpired" \
    --frames $frames --connect-timeout 2 > "$dir/expired.out" 2> "$dir/expired.err"
rc=$?
[ $rc -eq 1 ] || fail "a member with an expired token exited $rc, not 1"
grep -q "warning: --token-file .*: it expired" "$dir/expired.err" ||
    fail "a member with an expired token did not say so before it sent it"
echo "  expired token: $(head -n 1 "$dir/expired.err" | cut -c1-100)..."
# the relay says why on its stderr, once (the member retried for 2 s)
n=$(grep -c "^tempo-relay: refused a client at 127.0.0.1:[0-9]*: its token has expired" "$dir/srelay.err")
[ "$n" -eq 1 ] || fail "the relay told the expired token $n times, not once: $(cat "$dir/srelay.err")"
echo "  relay: $(grep "its token has expired" "$dir/srelay.err" | cut -c1-100)..."
match sealed $port "--token-file $dir/t%i"
grep -q "sealed: datagrams authenticated and encrypted with the token's keys" "$dir/sealed-0.err" ||
    fail "the sealed members did not say they were sealed"
kill $relay_pid
wait $relay_pid
grep -q "^final " "$dir/srelay.out" || fail "the sealed relay printed no final line"
echo "arena_relay: ok"
