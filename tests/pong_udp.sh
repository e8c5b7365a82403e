#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo-pong as separate processes over real UDP on loopback.
# usage: pong_udp.sh <tempo-pong> <tempo-token or -> <work dir> open|sealed
#   open: the command line (--help, usage errors naming what is wrong), two
#     --local runs ending on the same line, then a server and 8 bot clients
#     for 4 s: every client prints the server's "final tick=N checksum=C",
#     and so do two clients reconciling with none and dumb.
#   sealed: a server with a private key and 2 clients with tokens from
#     tempo-token end on the server's line; a client without a token is not
#     admitted and gives up.
set -u
pong=$1
token=$2
dir=$3
mode=$4
rm -rf "$dir"
mkdir -p "$dir"
fail() { echo "FAIL: $*"; for f in "$dir"/*.out "$dir"/*.err; do [ -s "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
# A port of our own, from the process id, to stay clear of parallel runs.
port=$((30000 + ($$ % 5000) * 3 + $(echo "$mode" | wc -c)))
frames=240

# server NAME PLAYERS [options...]: start a server in the background.
server() {
    name=$1 players=$2
    shift 2
    "$pong" --server --port $port --players "$players" --frames $frames "$@" \
        > "$dir/$name.out" 2> "$dir/$name.err" &
    server_pid=$!
}
# client NAME PLAYERS [options...]: start a bot client in the background.
client() {
    name=$1 players=$2
    shift 2
    "$pong" --client --connect 127.0.0.1:$port --players "$players" --bot --frames $frames \
        --timeout 15 "$@" \
        > "$dir/$name.out" 2> "$dir/$name.err" &
    client_pids="$client_pids $!"
}
# All the named processes' final lines equal the server's.
same_final() { # server-name client-names...
    want=$(grep '^final ' "$dir/$1.out")
    [ -n "$want" ] || fail "$1 printed no final line"
    for n in "$@"; do
        got=$(grep '^final ' "$dir/$n.out")
        [ "$got" = "$want" ] || fail "$n printed '$got', the server '$want'"
    done
    echo "  $want, $# processes"
}
wait_all() { # what
    for p in $client_pids; do wait "$p" || fail "a client of the $1 exited with an error"; done
    wait "$server_pid" || fail "the server of the $1 exited with an error"
    client_pids=""
}
client_pids=""

case $mode in
open)
    echo "command line:"
    out=$("$pong" --help); rc=$?
    [ $rc -eq 0 ] || fail "--help exited $rc"
    for opt in server client local port players frames seed private-key-file address connect \
               bot token-file reconcile timeout; do
        echo "$out" | grep -q -- "--$opt" || fail "--help does not list --$opt"
    done
    usage_error() { # expected text, then arguments
        want=$1; shift
        msg=$("$pong" "$@" 2>&1 >/dev/null); rc=$?
        [ $rc -eq 2 ] || fail "'$*' exited $rc, not 2"
        echo "$msg" | grep -qF -- "$want" || fail "'$*' said '$msg', without '$want'"
        echo "  $*: $(echo "$msg" | head -n 1)"
    }
    usage_error "--server, --client or --local is required"
    usage_error "give one of --server, --client and --local" --server --client
    usage_error "--server needs --port P" --server
    usage_error "--client needs --connect HOST:PORT" --client
    usage_error "--players 9: out of range, want 2..8" --local --players 9
    usage_error "--reconcile fast: want replay, none or dumb" --client --reconcile fast
    usage_error "--bot: only for --client" --server --port 1 --bot
    usage_error "--private-key-file: only for --server" --client --connect 127.0.0.1:1 \
        --private-key-file k
    usage_error "--connect 127.0.0.1:0: port 0" --client --connect 127.0.0.1:0

    echo "local, twice:"
    a=$("$pong" --local --players 4 --frames 3000 --seed 5) || fail "--local exited with an error"
    b=$("$pong" --local --players 4 --frames 3000 --seed 5) || fail "--local exited with an error"
    [ "$a" = "$b" ] || fail "two local runs differ: '$a' and '$b'"
    echo "$a" | grep -q '^final tick=3000 checksum=[0-9a-f]\{16\}$' || fail "local printed '$a'"
    echo "  $(echo "$a" | head -n 1)"

    echo "a server and 8 bot clients:"
    server s8 8
    sleep 0.3
    for i in 0 1 2 3 4 5 6 7; do client c8-$i 8; done
    wait_all "8-client match"
    same_final s8 c8-0 c8-1 c8-2 c8-3 c8-4 c8-5 c8-6 c8-7
    grep -q "^stats ticks=[0-9]* clients=[0-8] connects=8 " "$dir/s8.out" ||
        fail "the server did not count 8 connects: $(grep '^stats' "$dir/s8.out")"
    players=$(cat "$dir"/c8-*.out | sed -n 's/^stats player=\([0-9]\) .*/\1/p' | sort | tr -d '\n')
    [ "$players" = 01234567 ] || fail "the clients played players '$players', not 0..7 once each"
    for i in 0 1 2 3 4 5 6 7; do
        grep -q '^stats .* snapshots=[1-9]' "$dir/c8-$i.out" || fail "c8-$i took no snapshot"
    done
    echo "  players $players, $(grep '^stats' "$dir/c8-0.out" | cut -d' ' -f2-5)"

    echo "clients reconciling with none and dumb:"
    port=$((port + 1))
    server sm 2
    sleep 0.3
    client cnone 2 --reconcile none
    client cdumb 2 --reconcile dumb
    wait_all "none/dumb match"
    same_final sm cnone cdumb
    ;;
sealed)
    [ -x "$token" ] || fail "no tempo-token at '$token'"
    "$token" --key-file "$dir/server.key" --new-key > /dev/null || fail "tempo-token --new-key"
    for i in 1 2; do
        "$token" --key-file "$dir/server.key" --client-id $i --server 127.0.0.1:$port \
            --expire-seconds 300 --out "$dir/t$i" > /dev/null || fail "tempo-token minting $i"
    done
    echo "a sealed server and 2 clients with tokens, one without:"
    server ss 2 --private-key-file "$dir/server.key"
    sleep 0.3
    client ct1 2 --token-file "$dir/t1"
    client ct2 2 --token-file "$dir/t2"
    "$pong" --client --connect 127.0.0.1:$port --bot --frames $frames --timeout 3 \
        > "$dir/cnotoken.out" 2> "$dir/cnotoken.err"
    rc=$?
    [ $rc -eq 1 ] || fail "a client without a token exited $rc, not 1"
    grep -q '^final' "$dir/cnotoken.out" && fail "a client without a token printed a final line"
    grep -q "not admitted" "$dir/cnotoken.err" || fail "a client without a token did not say why"
    echo "  without a token: $(tail -n 1 "$dir/cnotoken.err")"
    wait_all "sealed match"
    same_final ss ct1 ct2
    grep -q "connected (id 1)" "$dir/ss.err" || fail "the server did not admit client id 1"
    grep -q "connected (id 2)" "$dir/ss.err" || fail "the server did not admit client id 2"
    grep -q "^stats .* connects=2 " "$dir/ss.out" || fail "the server admitted more than 2"
    grep -q "refused=0 " "$dir/ss.out" && fail "the server refused nothing"
    echo "  $(grep '^stats' "$dir/ss.out" | cut -d' ' -f2-8)"
    ;;
*)
    fail "unknown mode $mode"
    ;;
esac
echo "pong_udp $mode: ok"
