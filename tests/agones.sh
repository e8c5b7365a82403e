#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo's programs as Agones game servers, against Agones' own SDK server
# in local mode (it answers as the sidecar of a GameServer pod does and
# keeps the GameServer record, read back with agones-probe), each case
# with its SDK server on ports of its own. Cases:
#   relay_lifecycle  tempo-relay goes Ready once bound, with the labels of a
#                    relay with room; an allocation (the allocator's metadata
#                    written to the record) is read from the watch and logged;
#                    the capacity label follows two matches starting and
#                    ending; health pings keep coming while they play; empty
#                    again, the relay goes back to Ready
#   relay_drain      SIGTERM mid-match: the match finishes on every member
#                    with equal checksums, a new match is refused, the
#                    GameServer ends Shutdown and the relay exits 0
#   relay_late       the SDK server starts 3 s after the relay, whose match
#                    plays on meanwhile: the relay goes Ready once it can,
#                    then Allocated (it holds a match), its labels arrive,
#                    the players see nothing
#   relay_restart    the SDK server is killed mid-match and started again:
#                    the match plays on, health resumes, the labels the new
#                    record lacks are set again
#   pong             tempo-pong --server: Ready, a player who comes early is
#                    refused with the reason, Allocated through the SDK, a
#                    match of 2 clients ending on equal lines, Shutdown, exit 0
#   hitscan          tempo-hitscan --server the same way: Ready, an early
#                    player refused, Allocated, 2 bots play 3 s, Shutdown
#   edgegap          (no SDK server needed) tempo-pong --server with
#                    ARBITRIUM_DELETE_URL at a local listener: the finished
#                    match sends DELETE there with the token
# The SDK server: $AGONES_SDK_SERVER, or unpacked from a kit holding
# get-sdk-server.sh (../shared/agones beside the checkout, or
# /work/shared/agones); without one every case but edgegap exits 77 (skip)
# saying how to get it (docs/DEPLOY.md).
# usage: agones.sh CASE <tempo-relay> <tempo-pong> <tempo-hitscan> <relay-member> <agones-probe>
#                  <source dir> <work dir>
set -u
case_=$1
relay=$2
pong=$3
hitscan=$4
member=$5
probe=$6
src=$7
work=$8
rm -rf "$work"
mkdir -p "$work"
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT
fail() {
    echo "FAIL ($case_): $*"
    for f in "$work"/*.out "$work"/*.err "$work"/*.log; do
        [ -s "$f" ] && { echo "--- $f"; tail -n 40 "$f"; }
    done
    exit 1
}
# wait_for SECONDS COMMAND...: until COMMAND succeeds, polling every 0.1 s.
wait_for() {
    n=$(($1 * 10))
    shift
    while [ "$n" -gt 0 ]; do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.1
        n=$((n - 1))
    done
    return 1
}

find_sdk() {
    if [ -n "${AGONES_SDK_SERVER:-}" ]; then
        [ -x "$AGONES_SDK_SERVER" ] || { echo "SKIP: AGONES_SDK_SERVER=$AGONES_SDK_SERVER is not a program"; exit 77; }
        sdk=$AGONES_SDK_SERVER
        return
    fi
    for kit in "$src/../shared/agones" /work/shared/agones; do
        [ -x "$kit/get-sdk-server.sh" ] || continue
        sdk=$work/../agones-sdk-server
        if [ ! -x "$sdk" ]; then
            "$kit/get-sdk-server.sh" "$sdk.$$" >/dev/null 2>"$work/unpack.err" ||
                { echo "SKIP: the SDK server kit at $kit did not unpack:"; cat "$work/unpack.err"; exit 77; }
            mv -f "$sdk.$$" "$sdk"
        fi
        return
    done
    echo "SKIP: no Agones SDK server: set AGONES_SDK_SERVER to Agones' sdk-server (its release, or"
    echo "      go build ./cmd/sdk-server in Agones' source; docs/DEPLOY.md)"
    exit 77
}

# Ports of our own (tests/support/ports.sh): TCP from base, UDP from udp.
. "$(dirname "$0")/support/ports.sh"
reserve_ports || exit 1
base=$ports
udp=$((ports + 48))
sdk_tries=0

# start_sdk NAME [FILE]: Agones' SDK server in local mode (the GameServer
# from FILE, else its default) on a free port: $sdk_port, $sdk_pid.
start_sdk() {
    name=$1
    file=${2:-}
    while [ $sdk_tries -lt 6 ]; do
        sdk_port=$((base + 8 + sdk_tries))
        sdk_tries=$((sdk_tries + 1))
        # the SDK server reads settings from the environment too: only ours count
        if [ -n "$file" ]; then
            env -u FILE -u TIMEOUT -u DELAY -u TEST -u ADDRESS -u LOCAL "$sdk" --local -f "$file" \
                --http-port $sdk_port --grpc-port $((sdk_port + 1)) >> "$work/$name.log" 2>&1 &
        else
            env -u FILE -u TIMEOUT -u DELAY -u TEST -u ADDRESS -u LOCAL "$sdk" --local \
                --http-port $sdk_port --grpc-port $((sdk_port + 1)) >> "$work/$name.log" 2>&1 &
        fi
        sdk_pid=$!
        pids="$pids $sdk_pid"
        wait_for 8 "$probe" get $sdk_port && return 0
        kill $sdk_pid 2>/dev/null
        wait $sdk_pid 2>/dev/null
    done
    fail "the SDK server did not start"
}

# A GameServer record as an allocator leaves it, written in place (the SDK
# server watches the file).
gameserver_file() { # FILE STATE [annotations and labels as YAML lines]
    f=$1
    state=$2
    shift 2
    {
        echo "apiVersion: agones.dev/v1"
        echo "kind: GameServer"
        echo "metadata:"
        echo "  name: tempo-under-test"
        for line in "$@"; do echo "$line"; done
        echo "status:"
        echo "  state: $state"
        echo "  address: 127.0.0.1"
    } > "$f.new"
    if [ -f "$f" ]; then cat "$f.new" > "$f"; else mv "$f.new" "$f"; fi
    rm -f "$f.new"
}

gs() { "$probe" get $sdk_port; }
has() { gs | grep -qx "$1"; }
state_is() { has "state=$1"; }
label_is() { has "label agones.dev/sdk-$1=$2"; }
health_count() { grep -c "Health Ping Received" "$work/$1.log"; }

# start_relay NAME [options]: tempo-relay under Agones on $udp.
start_relay() {
    name=$1
    shift
    AGONES_SDK_HTTP_PORT=$sdk_port "$relay" --port $udp --bind 127.0.0.1 --max-matches 4 \
        --max-members 64 --stats-seconds 3600 "$@" > "$work/$name.out" 2> "$work/$name.err" &
    relay_pid=$!
    pids="$pids $relay_pid"
}
# start_match MATCH FRAMES NAME: two members of MATCH in the background.
start_match() {
    for p in 0 1; do
        "$member" 127.0.0.1:$udp "$1" $p 2 "$2" 30 > "$work/$3.$p.out" 2> "$work/$3.$p.err" &
        eval "m_$3_$p=\$!"
    done
}
# end_match NAME: both members exited 0 with the same final line.
end_match() {
    eval "wait \$m_$1_0"
    r0=$?
    eval "wait \$m_$1_1"
    r1=$?
    [ $r0 -eq 0 ] && [ $r1 -eq 0 ] || fail "match $1: members exited $r0 and $r1"
    a=$(sed -n 's/^final .*checksum=\([0-9a-f]*\).*/\1/p' "$work/$1.0.out")
    b=$(sed -n 's/^final .*checksum=\([0-9a-f]*\).*/\1/p' "$work/$1.1.out")
    [ -n "$a" ] && [ "$a" = "$b" ] || fail "match $1: checksums '$a' and '$b'"
    grep -q "desyncs=0 " "$work/$1.0.out" || fail "match $1: a desync"
}

case $case_ in
relay_lifecycle)
    find_sdk
    gameserver_file "$work/gs.yaml" Scheduled "  labels:" "    team: blue"
    start_sdk sdk "$work/gs.yaml"
    state_is Scheduled || fail "the record does not start Scheduled"
    start_relay relay --idle-seconds 2
    wait_for 5 state_is Ready || fail "the relay did not go Ready"
    grep -q "^tempo-relay: unsealed on 127.0.0.1:$udp" "$work/relay.out" || fail "no bind line"
    wait_for 3 label_is gs-session-ready true || fail "no session-ready label"
    label_is matches-free 4 || fail "matches-free is not 4 at the start"
    # an allocator's allocation: the record turns Allocated with its metadata
    labels=$(gs | sed -n 's/^label \(agones.dev\/sdk-[^=]*\)=\(.*\)/    \1: "\2"/p')
    gameserver_file "$work/gs.yaml" Allocated "  annotations:" \
        "    agones.dev/last-allocated: \"2030-01-01T00:00:01.5Z\"" "    tempo-match: m1" \
        "  labels:" "    team: blue" "$labels"
    wait_for 5 grep -q "allocated (2030-01-01T00:00:01.5Z).*tempo-match=m1" "$work/relay.err" ||
        fail "the allocation's metadata was not read from the watch"
    wait_for 3 label_is matches-free 3 || fail "an allocation holds no room"
    h0=$(health_count sdk)
    start_match 1 300 m1
    start_match 2 300 m2
    wait_for 8 label_is matches-free 2 || fail "two matches playing (one allocated): matches-free is not 2"
    label_is gs-session-ready true || fail "session-ready is not true with room left"
    end_match m1
    end_match m2
    h1=$(health_count sdk)
    [ $((h1 - h0)) -ge 2 ] || fail "$((h1 - h0)) health pings while the matches played"
    wait_for 6 label_is matches-free 4 || fail "the matches ended: matches-free is not 4"
    # empty for --idle-seconds: back to Ready, so the fleet may scale it down
    wait_for 6 state_is Ready || fail "an idle Allocated relay did not go back to Ready"
    kill -TERM $relay_pid
    wait $relay_pid || fail "the relay exited $?"
    state_is Shutdown || fail "not Shutdown after the relay stopped"
    echo "agones relay_lifecycle: ok ($((h1 - h0)) health pings during the matches)"
    ;;
relay_drain)
    find_sdk
    start_sdk sdk
    start_relay relay --drain-seconds 30
    wait_for 5 label_is gs-session-ready true || fail "the relay did not set its labels"
    start_match 1 360 m1
    sleep 2
    kill -TERM $relay_pid
    wait_for 3 grep -q "draining (signal)" "$work/relay.err" || fail "no drain on SIGTERM"
    "$member" 127.0.0.1:$udp 9 0 2 60 10 > "$work/late.out" 2> "$work/late.err"
    [ $? -eq 3 ] || fail "a new match was not refused while draining"
    wait_for 3 label_is gs-session-ready false || fail "session-ready did not turn false"
    end_match m1
    wait $relay_pid || fail "the relay exited $? after the drain"
    grep -q "drained: every match has ended" "$work/relay.err" || fail "the drain did not wait for the match"
    state_is Shutdown || fail "not Shutdown after the drain"
    echo "agones relay_drain: ok"
    ;;
relay_late)
    find_sdk
    # the relay first, on the port its SDK server will have
    sdk_port=$((base + 3))
    start_relay relay
    start_match 1 600 m1
    sleep 3
    gameserver_file "$work/gs.yaml" Scheduled
    env -u FILE -u TIMEOUT -u DELAY -u TEST -u ADDRESS -u LOCAL "$sdk" --local -f "$work/gs.yaml" \
        --http-port $sdk_port --grpc-port $((sdk_port + 1)) > "$work/sdk.log" 2>&1 &
    pids="$pids $!"
    # Ready once it can, then Allocated: a relay holding a match asks for it
    wait_for 8 grep -q "Ready request has been received" "$work/sdk.log" ||
        fail "the relay did not go Ready once the SDK server came"
    wait_for 3 state_is Allocated || fail "a relay with a match running did not mark itself Allocated"
    wait_for 3 label_is matches-free 3 || fail "the labels did not arrive"
    end_match m1
    grep -q "working again" "$work/relay.err" || fail "the relay did not log the SDK server's arrival"
    kill -TERM $relay_pid
    wait $relay_pid || fail "the relay exited $?"
    echo "agones relay_late: ok"
    ;;
relay_restart)
    find_sdk
    start_sdk sdk1
    start_relay relay
    wait_for 5 label_is gs-session-ready true || fail "the relay did not set its labels"
    start_match 1 720 m1
    sleep 2
    wait_for 3 label_is matches-free 3 || fail "matches-free is not 3 with a match playing"
    kill -KILL $sdk_pid
    wait $sdk_pid 2>/dev/null
    sleep 1
    env -u FILE -u TIMEOUT -u DELAY -u TEST -u ADDRESS -u LOCAL "$sdk" --local \
        --http-port $sdk_port --grpc-port $((sdk_port + 1)) > "$work/sdk2.log" 2>&1 &
    pids="$pids $!"
    wait_for 8 "$probe" get $sdk_port || fail "the SDK server did not start again"
    wait_for 6 label_is matches-free 3 || fail "the relay did not set its labels again"
    # the relay sets its labels again one request after the other, in the
    # order it first set them (matches-free first): the second may land
    # after the first is seen
    wait_for 3 label_is gs-session-ready true || fail "session-ready was not set again"
    wait_for 4 sh -c "[ \$(grep -c 'Health Ping Received' '$work/sdk2.log') -ge 1 ]" ||
        fail "no health ping reached the new SDK server"
    end_match m1
    kill -TERM $relay_pid
    wait $relay_pid || fail "the relay exited $?"
    echo "agones relay_restart: ok"
    ;;
pong)
    find_sdk
    gameserver_file "$work/gs.yaml" Scheduled
    start_sdk sdk "$work/gs.yaml"
    AGONES_SDK_HTTP_PORT=$sdk_port "$pong" --server --port $udp --frames 240 \
        > "$work/server.out" 2> "$work/server.err" &
    server=$!
    pids="$pids $server"
    wait_for 5 state_is Ready || fail "tempo-pong did not go Ready"
    "$pong" --client --connect 127.0.0.1:$udp --bot --frames 240 --timeout 5 \
        > "$work/early.out" 2> "$work/early.err" && fail "a client played before the allocation"
    grep -q "refused: this game server is not allocated yet (GameServer Ready)" "$work/server.err" ||
        fail "the early client was not refused with the reason"
    [ "$("$probe" post $sdk_port /allocate)" = 200 ] || fail "POST /allocate"
    wait_for 3 grep -q "agones: allocated" "$work/server.err" || fail "the allocation was not seen"
    "$pong" --client --connect 127.0.0.1:$udp --bot --frames 240 --timeout 15 \
        > "$work/c1.out" 2> "$work/c1.err" &
    c1=$!
    "$pong" --client --connect 127.0.0.1:$udp --bot --frames 240 --timeout 15 \
        > "$work/c2.out" 2> "$work/c2.err" || fail "client 2"
    wait $c1 || fail "client 1"
    wait $server || fail "the server exited $?"
    s=$(grep '^final' "$work/server.out")
    [ -n "$s" ] && [ "$s" = "$(grep '^final' "$work/c1.out")" ] &&
        [ "$s" = "$(grep '^final' "$work/c2.out")" ] || fail "the final lines differ"
    state_is Shutdown || fail "not Shutdown after the match"
    echo "agones pong: ok"
    ;;
hitscan)
    find_sdk
    gameserver_file "$work/gs.yaml" Scheduled
    start_sdk sdk "$work/gs.yaml"
    AGONES_SDK_HTTP_PORT=$sdk_port "$hitscan" --server --port $udp --clients 2 --seconds 3 \
        > "$work/server.out" 2> "$work/server.err" &
    server=$!
    pids="$pids $server"
    wait_for 5 state_is Ready || fail "tempo-hitscan did not go Ready"
    "$hitscan" --client --connect 127.0.0.1:$udp --clients 2 --seconds 1 \
        > "$work/early.out" 2> "$work/early.err" && fail "a client played before the allocation"
    grep -q "refused: this game server is not allocated yet (GameServer Ready)" "$work/server.err" ||
        fail "the early client was not refused with the reason"
    [ "$("$probe" post $sdk_port /allocate)" = 200 ] || fail "POST /allocate"
    wait_for 3 grep -q "agones: allocated" "$work/server.err" || fail "the allocation was not seen"
    "$hitscan" --client --connect 127.0.0.1:$udp --clients 2 --seconds 3 > "$work/c1.out" 2> "$work/c1.err" &
    c1=$!
    "$hitscan" --client --connect 127.0.0.1:$udp --clients 2 --seconds 3 > "$work/c2.out" 2> "$work/c2.err" ||
        fail "client 2"
    wait $c1 || fail "client 1"
    wait $server || fail "the server exited $?"
    grep -q "^final ticks=180 " "$work/server.out" || fail "the server did not play 180 ticks"
    state_is Shutdown || fail "not Shutdown after the match"
    echo "agones hitscan: ok"
    ;;
edgegap)
    hook=$((udp + 2))
    "$probe" listen $hook "$work/request.txt" 30 > "$work/listener.out" 2>&1 &
    listener=$!
    pids="$pids $listener"
    sleep 0.3
    ARBITRIUM_DELETE_URL=http://127.0.0.1:$hook/v1/self/stop/9f511e17/660 \
        ARBITRIUM_DELETE_TOKEN=7df4cd933df8 "$pong" --server --port $udp --frames 120 --no-agones \
        > "$work/server.out" 2> "$work/server.err" &
    server=$!
    pids="$pids $server"
    "$pong" --client --connect 127.0.0.1:$udp --bot --frames 120 --timeout 15 > "$work/c1.out" 2>&1 &
    c1=$!
    "$pong" --client --connect 127.0.0.1:$udp --bot --frames 120 --timeout 15 > "$work/c2.out" 2>&1 ||
        fail "client 2"
    wait $c1 || fail "client 1"
    wait $server || fail "the server exited $?"
    wait $listener || fail "the listener had no request"
    head -n 1 "$work/request.txt" | grep -q "^DELETE /v1/self/stop/9f511e17/660 HTTP/1.1" ||
        fail "not a DELETE of the URL's path: $(head -n 1 "$work/request.txt")"
    grep -qi "^authorization: 7df4cd933df8" "$work/request.txt" || fail "no authorization header with the token"
    grep -q "edgegap: DELETE .*: HTTP 200" "$work/server.err" || fail "the server did not log the answer"
    echo "agones edgegap: ok"
    ;;
*)
    echo "agones.sh: unknown case $case_"
    exit 2
    ;;
esac
exit 0
