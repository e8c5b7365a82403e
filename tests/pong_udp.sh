#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo-pong as separate processes over real UDP on loopback.
# usage: pong_udp.sh <tempo-pong> <tempo-token or -> <work dir> open|sealed
#   open: the command line (--help, usage errors naming what is wrong), two
#     --local runs ending on the same line, then a server and 8 bot clients
#     for 4 s: every client prints the server's "final tick=N checksum=C",
#     and so do two clients reconciling with none and dumb.
#     A client whose server dies without a goodbye exits 1 ("fell silent").
#   sealed: a server with a private key and 2 clients with tokens from
#     tempo-token end on the server's line; a client without a token and
#     one with an expired token are not admitted, give up and say why (the
#     second before it sends), and the server's log names both reasons.
set -u
pong=$1
token=$2
dir=$3
mode=$4
rm -rf "$dir"
mkdir -p "$dir"
fail() { echo "FAIL: $*"; for f in "$dir"/*.out "$dir"/*.err; do [ -s "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
# A port of our own, clear of parallel runs (tests/support/ports.sh).
. "$(dirname "$0")/support/ports.sh"
reserve_ports || exit 1
port=$ports
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
    for opt in server client local port players frames seed key-file address connect \
               bot token-file reconcile connect-timeout timeout version; do
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
    usage_error "--key-file: only for --server" --client --connect 127.0.0.1:1 \
        --key-file k
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
    grep -q "(id " "$dir/sm.err" && fail "the unsealed server named a client id: $(cat "$dir/sm.err")"

    echo "a server that dies without a goodbye:"
    port=$((port + 1))
    "$pong" --server --port $port --players 2 > "$dir/sgone.out" 2> "$dir/sgone.err" &
    gone_pid=$!
    sleep 0.3
    "$pong" --client --connect 127.0.0.1:$port --bot > "$dir/cgone.out" 2> "$dir/cgone.err" &
    cgone_pid=$!
    sleep 1
    kill -9 $gone_pid
    wait $gone_pid 2>/dev/null
    wait $cgone_pid
    rc=$?
    [ $rc -eq 1 ] || fail "a client whose server died exited $rc, not 1"
    grep -q "the server fell silent" "$dir/cgone.err" || fail "the client did not say the server fell silent"
    echo "  $(tail -n 1 "$dir/cgone.err")"
    ;;
sealed)
    [ -x "$token" ] || fail "no tempo-token at '$token'"
    "$token" --key-file "$dir/server.key" --new-key > /dev/null || fail "tempo-token --new-key"
    for i in 1 2; do
        "$token" --key-file "$dir/server.key" --client-id $i --connect 127.0.0.1:$port \
            --expire-seconds 300 --out "$dir/t$i" > /dev/null || fail "tempo-token minting $i"
    done
    # made two minutes ago, valid for one
    "$token" --key-file "$dir/server.key" --client-id 3 --connect 127.0.0.1:$port \
        --expire-seconds 60 --now $(($(date +%s) - 120)) --out "$dir/texpired" > /dev/null ||
        fail "tempo-token minting the expired token"
    echo "a sealed server and 2 clients with tokens, one without, one with an expired token:"
    server ss 2 --key-file "$dir/server.key"
    sleep 0.3
    client ct1 2 --token-file "$dir/t1"
    client ct2 2 --token-file "$dir/t2"
    "$pong" --client --connect 127.0.0.1:$port --bot --frames $frames --connect-timeout 2 \
        > "$dir/cnotoken.out" 2> "$dir/cnotoken.err"
    rc=$?
    [ $rc -eq 1 ] || fail "a client without a token exited $rc, not 1"
    grep -q '^final' "$dir/cnotoken.out" && fail "a client without a token printed a final line"
    grep -q "not admitted" "$dir/cnotoken.err" || fail "a client without a token did not say why"
    echo "  without a token: $(tail -n 1 "$dir/cnotoken.err")"
    "$pong" --client --connect 127.0.0.1:$port --bot --frames $frames --connect-timeout 2 \
        --token-file "$dir/texpired" > "$dir/cexpired.out" 2> "$dir/cexpired.err"
    rc=$?
    [ $rc -eq 1 ] || fail "a client with an expired token exited $rc, not 1"
    head -n 1 "$dir/cexpired.err" | grep -q "warning: --token-file .*: it expired [0-9]* s ago" ||
        fail "the client did not say its token expired before it sent it"
    echo "  expired: $(head -n 1 "$dir/cexpired.err")"
    wait_all "sealed match"
    same_final ss ct1 ct2
    grep -q "connected (id 1)" "$dir/ss.err" || fail "the server did not admit client id 1"
    grep -q "connected (id 2)" "$dir/ss.err" || fail "the server did not admit client id 2"
    grep -q "^stats .* connects=2 " "$dir/ss.out" || fail "the server admitted more than 2"
    grep -q "refused=0 " "$dir/ss.out" && fail "the server refused nothing"
    grep -q "refused a client at .*: it came without a connect token" "$dir/ss.err" ||
        fail "the server's log does not say a client came without a token"
    grep -q "refused a client at .*: its token has expired" "$dir/ss.err" ||
        fail "the server's log does not say a token expired"
    grep "refused a client" "$dir/ss.err" | sed 's/^/  server: /'
    echo "  $(grep '^stats' "$dir/ss.out" | cut -d' ' -f2-8)"
    ;;
*)
    fail "unknown mode $mode"
    ;;
esac
echo "pong_udp $mode: ok"
