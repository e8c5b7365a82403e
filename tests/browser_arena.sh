#!/bin/sh
# SPDX-License-Identifier: MIT
# A browser member and native members in one match: headless Chromium
# opens the arena page (make wasm) served by tempo-relay --serve-page, joins
# over a WebSocket as the last player with ?bot=SEED, and the other players
# are tempo-arena processes over UDP; every member prints the same final
# line of a 900-frame match (the page on its console). When the page was
# built with libsodium (its build.txt says "sealing on") and tempo-token is
# given, the relay has a private key and every member, the page too, joins
# with a token from tempo-token, sealed. Also prints what
# tempo's own work cost per tick in the page and in each native member,
# and keeps the page's canvas at the end as page.png in the work folder.
# usage: browser_arena.sh <tempo-arena> <tempo-relay> <tempo-token or -> <page dir> <work dir>
#        [players [frames]]
# Exit 77 (skip) without Chromium or without the page (no Emscripten).
set -u
arena=$1
relay=$2
token=$3
page=$4
dir=$5
players=${6:-3}
frames=${7:-900}
browser=
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
[ -n "$browser" ] || { echo "skip: no chromium on PATH (sh scripts/bootstrap.sh wasm installs it)"; exit 77; }
[ -f "$page/arena.js" ] || {
    echo "skip: no page in $page (make wasm builds it; it needs Emscripten: sh scripts/bootstrap.sh wasm)"
    exit 77
}
rm -rf "$dir"
mkdir -p "$dir"
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$dir"/*.out "$dir"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -n 20 "$f" | cut -c1-300; }; done; exit 1; }
# ports of our own, clear of parallel runs (tests/support/ports.sh)
. "$(dirname "$0")/support/ports.sh"
reserve_ports || exit 1
port=$ports
sealed=""
if [ "$token" != - ] && [ -x "$token" ] && grep -q "sealing on" "$page/build.txt" 2>/dev/null; then
    "$token" --key-file "$dir/backend.key" --new-key > /dev/null || fail "tempo-token --new-key"
    sealed="--key-file $dir/backend.key"
fi
for try in 1 2 3 4 5; do
    # shellcheck disable=SC2086
    "$relay" --port $port --ws-port $((port + 1)) --bind 127.0.0.1 --serve-page "$page" $sealed \
        --seconds 90 --stats-seconds 120 > "$dir/relay.out" 2> "$dir/relay.err" &
    relay_pid=$!
    sleep 0.3
    kill -0 $relay_pid 2>/dev/null && break
    port=$((port + 7))
done
kill -0 $relay_pid 2>/dev/null || fail "tempo-relay did not start"
pids="$relay_pid"
web=$((players - 1))
# with a key: a token per member, the page's in hex in its address
join() { # join I: tempo-arena's options for member I
    if [ -n "$sealed" ]; then
        "$token" --key-file "$dir/backend.key" --client-id $(($1 + 1)) --connect 127.0.0.1:$port \
            --match 21 --players $players --player $1 --out "$dir/t$1" > /dev/null || fail "minting token $1"
        echo "--token-file $dir/t$1"
    else
        echo "--match 21"
    fi
}
page_token=""
if [ -n "$sealed" ]; then
    join $web > /dev/null
    page_token="#token=$(od -An -v -tx1 "$dir/t$web" | tr -d ' \n')"
fi
url="http://127.0.0.1:$((port + 1))/?relay=ws://127.0.0.1:$((port + 1))/&match=21&players=$players&player=$web&frames=$frames&bot=5&shot=1$page_token"
# root may not use Chromium's sandbox; the profile is thrown away
"$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --disable-background-timer-throttling \
    --user-data-dir="$dir/profile" --enable-logging=stderr --v=0 --window-size=1400,800 \
    "$url" > /dev/null 2> "$dir/chromium.err" &
chrome_pid=$!
pids="$pids $chrome_pid"
native=""
i=0
while [ $i -lt $web ]; do
    # shellcheck disable=SC2046
    "$arena" --players $players --player $i --relay 127.0.0.1:$port $(join $i) --frames $frames \
        --seed 5 --connect-timeout 20 > "$dir/m$i.out" 2> "$dir/m$i.err" &
    native="$native $!"
    i=$((i + 1))
done
for p in $native; do wait "$p" || fail "a native member exited with an error"; done
# the page's line: it confirms the last frame about when the natives do
for t in $(seq 1 100); do
    grep -q '"final frame=\|"failed: ' "$dir/chromium.err" && break
    sleep 0.1
done
sleep 0.5
kill $chrome_pid 2>/dev/null
wait $chrome_pid 2>/dev/null
kill $relay_pid
wait $relay_pid
pids=""
line() { sed -n "s/.*\"\\($1[^\"]*\\)\".*/\\1/p" "$dir/chromium.err" | head -n 1; }
got=$(line "final frame=")
[ -n "$got" ] || fail "the page printed no final line ($(line 'failed: '))"
want=$(cat "$dir/m0.out")
echo "$want" | grep -q "^final frame=$frames checksum=[0-9a-f]\{16\}$" || fail "member 0 printed '$want'"
i=1
while [ $i -lt $web ]; do
    [ "$(cat "$dir/m$i.out")" = "$want" ] || fail "member $i printed '$(cat "$dir/m$i.out")', member 0 '$want'"
    i=$((i + 1))
done
[ "$got" = "$want" ] || fail "the page printed '$got', the native members '$want'"
sed -n 's/.*"shot data:image\/png;base64,\([^"]*\)".*/\1/p' "$dir/chromium.err" | base64 -d > "$dir/page.png" 2>/dev/null
ws=$(grep '^final ws_' "$dir/relay.out")
echo "$ws" | grep -q " ws_in=[1-9][0-9]\{2,\} ws_out=[1-9][0-9]\{2,\} " ||
    fail "the page's datagrams did not flow both ways: $ws"
echo "  $got: the page and $web native members, $([ -n "$sealed" ] && echo "sealed, every member with a token" || echo "unsealed (no libsodium in the page, or no tempo-token)")"
echo "  page:   $(line 'cost ')"
i=0
while [ $i -lt $web ]; do
    echo "  native $i: $(sed -n 's/^tempo-arena: relay: //p' "$dir/m$i.err")"
    i=$((i + 1))
done
echo "  relay:  $ws"
echo "browser_arena: ok"
