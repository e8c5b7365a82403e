#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo-pong-sdl without a display (SDL_VIDEODRIVER=offscreen): the real
# window loop, quitting by itself.
# usage: pong_sdl.sh <tempo-pong-sdl> <tempo-pong> <work dir>
#   --local: 120 ticks against bots, a full-size picture.
#   a client: a tempo-pong server, a bot client and the window (a bot plays
#     it) for 240 ticks: it connects, plays, prints its stats and a picture
#     of the field and the overlay; another picture with --reconcile none.
# Exit 77 means SDL found no usable video driver: CTest reports a skip.
set -u
exe=$1
pong=$2
dir=$3
rm -rf "$dir"
mkdir -p "$dir"
export SDL_VIDEODRIVER=offscreen SDL_AUDIODRIVER=dummy
# The offscreen driver loads the system's EGL/Mesa libraries, which keep
# some memory until exit: LeakSanitizer cannot even name them.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fail() { echo "FAIL: $*"; for f in "$dir"/*.out "$dir"/*.err; do [ -s "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
run() { # name, then arguments
    name=$1; shift
    "$exe" "$@" > "$dir/$name.out" 2> "$dir/$name.err"
    rc=$?
    [ "$rc" -ne 77 ] || { echo "skip: no video driver"; exit 77; }
    [ "$rc" -eq 0 ] || fail "exit $rc from: $exe $*"
}
# 1280 x 720 pixels at 3 bytes, plus the header: a picture, not a blank file.
is_picture() {
    [ -f "$1" ] || fail "$1 was not written"
    [ "$(head -c 2 "$1")" = BM ] || fail "$1 is not a BMP"
    [ "$(wc -c < "$1")" -gt 2700000 ] || fail "$1 is only $(wc -c < "$1") bytes"
}
. "$(dirname "$0")/support/ports.sh"
reserve_ports || exit 1
port=$ports

"$exe" --help > "$dir/help.out" || fail "--help"
for opt in connect local port players token-file reconcile bot frames screenshot; do
    grep -q -- "--$opt" "$dir/help.out" || fail "--help does not list --$opt"
done

echo "local, against bots:"
run local --local --players 4 --frames 120 --screenshot "$dir/local.bmp"
is_picture "$dir/local.bmp"
grep -q "local, 120 ticks" "$dir/local.out" || fail "the local run did not play 120 ticks"

# match NAME [window options...]: a server, one bot client and the window.
match() {
    name=$1; shift
    "$pong" --server --port $port --players 2 > "$dir/$name-server.out" 2> "$dir/$name-server.err" &
    server_pid=$!
    sleep 0.3
    "$pong" --client --connect 127.0.0.1:$port --bot > "$dir/$name-client.out" \
        2> "$dir/$name-client.err" &
    client_pid=$!
    run "$name" --connect 127.0.0.1:$port --bot --frames 240 --connect-timeout 15 \
        --screenshot "$dir/$name.bmp" "$@"
    kill "$client_pid" "$server_pid" 2>/dev/null
    wait "$client_pid" "$server_pid" 2>/dev/null
    is_picture "$dir/$name.bmp"
    grep -q "^tempo-pong-sdl: 240 ticks played" "$dir/$name.out" ||
        fail "$name: the window did not play 240 ticks"
    grep -q "^stats player=[01] .* snapshots=[1-9]" "$dir/$name.out" ||
        fail "$name: the window took no snapshots"
    echo "  $(head -n 1 "$dir/$name.out")"
    port=$((port + 1))
}
echo "a client window against a server:"
match replay
echo "the same with reconciliation off:"
match none --reconcile none
grep -q "reconciliation none" "$dir/none.out" || fail "--reconcile none was not used"
cmp -s "$dir/replay.bmp" "$dir/local.bmp" && fail "the client and the local run drew the same picture"
echo "ok: tempo-pong-sdl"
