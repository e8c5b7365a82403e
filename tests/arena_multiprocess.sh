#!/bin/sh
# SPDX-License-Identifier: MIT
# Real processes, real UDP on loopback: 2 and 4 tempo-arena peers, and a pair
# through tempo-netem's transatlantic profile. Every peer must print the same
# "final frame=F checksum=..." line. Also: the command line (--help, usage
# errors naming the allowed range), the same seed giving the same match
# however the peers' starts are staggered, an unreachable peer failing
# within the connect timeout, an IPv6 pair when the machine has ::1, and a
# sealed pair (--key on one side, --key-file on the other) that ends as the
# open one does, while a pair with different keys never starts.
# usage: arena_multiprocess.sh <tempo-arena> <tempo-netem> <work dir>
set -u
arena=$1
netem=$2
dir=$3
mkdir -p "$dir"
fail() { echo "FAIL: $*"; for f in "$dir"/*.out "$dir"/*.err; do [ -s "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
# A port range of our own, clear of parallel runs (tests/support/ports.sh).
. "$(dirname "$0")/support/ports.sh"
reserve_ports || exit 1
base=$ports
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

echo "command line:"
out=$("$arena" --help 2>&1); rc=$?
[ $rc -eq 0 ] || fail "--help exited $rc"
for opt in players player port peer relay token-file match frames seed input-delay connect-timeout \
           timeout key key-file verbose quiet headless version help; do
    echo "$out" | grep -q -- "--$opt" || fail "--help does not list --$opt"
done
usage_error() { # expected text, then arguments
    want=$1; shift
    msg=$("$arena" "$@" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 2 ] || fail "'$*' exited $rc, not 2"
    echo "$msg" | grep -qF -- "$want" || fail "'$*' said '$msg', without '$want'"
    echo "  $*: $(echo "$msg" | head -n 1)"
}
usage_error "--players 0: out of range, want 1..8" --players 0
usage_error "--frames abc: not a whole number, want 1..10000000" --frames abc
usage_error "--input-delay 99: want 0..8 frames, or auto" --input-delay 99
usage_error "--player x: want a player number 0..7" --players 2 --player x
usage_error "--player 3: want a player below --players, 0..1" \
    --players 2 --player 3 --port $base --peer 1=127.0.0.1:$((base + 1)) --frames 10
usage_error "player 1 is neither" --players 2 --player 0 --port $base --frames 10
usage_error "--player I is required" --players 2
usage_error "--key abc: want 64 hex digits (32 bytes)" --key abc
key=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
printf '%s\n' "$key" > "$dir/match.key"
usage_error "give the match key once" --players 2 --player 0 --port $base \
    --peer 1=127.0.0.1:$((base + 1)) --frames 10 --key $key --key-file "$dir/match.key"

echo "unreachable peer:"
t0=$(date +%s)
"$arena" --players 2 --player 0 --port $base --peer 1=127.0.0.1:$((base + 1)) \
    --frames 10 --connect-timeout 2 > "$dir/lonely.out" 2> "$dir/lonely.err"
rc=$?; t1=$(date +%s)
[ $rc -eq 1 ] || fail "a peer without an answer exited $rc, not 1"
[ $((t1 - t0)) -le 4 ] || fail "a 2 s connect timeout took $((t1 - t0)) s"
grep -q "did not start within 2 s: no answer from player 1 at 127.0.0.1:$((base + 1))" \
    "$dir/lonely.err" || fail "the connect timeout does not name the silent peer"
echo "  $(grep "did not start" "$dir/lonely.err")"
base=$((base + 2))

# Two peers, the second started `stagger` seconds after the first; prints
# the final line both agreed on.
run_pair() { # name stagger host [options of peer 0 [options of peer 1]]
    name=$1; stagger=$2; host=$3; opt0=${4:-}; opt1=${5:-}
    # shellcheck disable=SC2086
    "$arena" --players 2 --player 0 --port $base --peer 1=$host:$((base + 1)) \
        --frames $frames --seed 21 --timeout 60 $opt0 > "$dir/$name-0.out" 2> "$dir/$name-0.err" &
    p0=$!
    sleep "$stagger"
    # shellcheck disable=SC2086
    "$arena" --players 2 --player 1 --port $((base + 1)) --peer 0=$host:$base \
        --frames $frames --seed 21 --timeout 60 $opt1 > "$dir/$name-1.out" 2> "$dir/$name-1.err"
    r1=$?
    wait $p0; r0=$?
    base=$((base + 2))
    [ $r0 -eq 0 ] && [ $r1 -eq 0 ] || return 1
    same_final "$dir/$name-0.out" "$dir/$name-1.out" > /dev/null || return 1
    grep '^final ' "$dir/$name-0.out"
}

echo "the same seed twice, starts staggered differently:"
first=$(run_pair seed-a 0 127.0.0.1) || fail "the first same-seed match failed"
second=$(run_pair seed-b 1 127.0.0.1) || fail "the second same-seed match failed"
[ "$first" = "$second" ] || fail "the same seed ended differently: '$first', then '$second'"
echo "  $first, twice"

echo "2 peers sealed with a match key (--key, --key-file):"
sealed=$(run_pair sealed 0 127.0.0.1 "--key $key" "--key-file $dir/match.key") ||
    fail "the sealed pair failed"
[ "$sealed" = "$first" ] || fail "the sealed match ended differently: '$sealed', '$first'"
grep -q "sealed: datagrams authenticated" "$dir/sealed-0.err" || fail "peer 0 did not say it seals"
grep -q "NOT authenticated" "$dir/seed-a-0.err" || fail "an open peer did not warn"
echo "  $sealed"
echo "2 peers with different match keys never start:"
other=fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210
if run_pair wrongkey 0 127.0.0.1 "--key $key --connect-timeout 2" \
    "--key $other --connect-timeout 2" > /dev/null; then
    fail "peers with different keys played"
fi
grep -q "did not start within 2 s" "$dir/wrongkey-0.err" || fail "a wrong key did not stop the start"
echo "  $(grep "did not start" "$dir/wrongkey-0.err")"
# ... and each says why: the other's datagrams do not authenticate.
grep -q "datagrams from 127.0.0.1:$((base - 1)) fail authentication: different match key?" \
    "$dir/wrongkey-0.err" || fail "a wrong key was not named as the cause"
grep -q "datagrams from 127.0.0.1:$((base - 2)) fail authentication: different match key?" \
    "$dir/wrongkey-1.err" || fail "a wrong key was not named as the cause on the other side"
echo "  $(grep "fail authentication" "$dir/wrongkey-0.err" | head -n 1)"
echo "a key on one side only:"
if run_pair onekey 0 127.0.0.1 "--key $key --connect-timeout 2" "--connect-timeout 2" > /dev/null; then
    fail "a sealed and an open peer played"
fi
grep -q "datagrams from 127.0.0.1:$((base - 1)) are not sealed" "$dir/onekey-0.err" ||
    fail "the sealed peer did not say the other's datagrams are plain"
grep -q "datagrams from 127.0.0.1:$((base - 2)) are sealed" "$dir/onekey-1.err" ||
    fail "the open peer did not say the other's datagrams are sealed"
echo "  $(grep "are not sealed" "$dir/onekey-0.err" | head -n 1)"
echo "  $(grep "are sealed" "$dir/onekey-1.err" | head -n 1)"

echo "2 peers over IPv6 loopback:"
if v6=$(run_pair v6 0 "[::1]"); then
    [ "$v6" = "$first" ] || fail "IPv6 ended differently from IPv4: '$v6', '$first'"
    echo "  $v6"
elif grep -q "cannot bind IPv6" "$dir/v6-0.err"; then
    echo "  skipped: no IPv6 on this machine"
else
    fail "the IPv6 pair failed"
fi

echo "2 peers on loopback:"
run_mesh 2
echo "4 peers on loopback:"
run_mesh 4

# tempo-netem by host name, a profile with two fields set explicitly: its
# statistics must name the link and show the delay really added.
echo "2 peers through tempo-netem (transatlantic with delay 60 ms, loss 3%):"
"$netem" --help | grep -q -- "--reorder-delay" || fail "tempo-netem --help lacks --reorder-delay"
a=$base; b=$((base + 1)); listen=$((base + 2)); up=$((base + 3))
"$netem" --listen localhost:$listen --forward localhost:$b --up localhost:$up \
    --profile transatlantic --delay 60 --loss 3 --seed 3 > "$dir/netem.out" 2> "$dir/netem.err" &
netem_pid=$!
sleep 0.2
"$arena" --headless --players 2 --player 0 --port $a --peer 1=127.0.0.1:$listen \
    --frames $frames --seed 12 --input-delay auto --timeout 90 > "$dir/far-0.out" 2> "$dir/far-0.err" &
p0=$!
"$arena" --headless --players 2 --player 1 --port $b --peer 0=127.0.0.1:$up \
    --frames $frames --seed 12 --input-delay auto --timeout 90 > "$dir/far-1.out" 2> "$dir/far-1.err" &
p1=$!
wait $p0; r0=$?
wait $p1; r1=$?
kill "$netem_pid" 2>/dev/null
wait "$netem_pid" 2>/dev/null
[ $r0 -eq 0 ] && [ $r1 -eq 0 ] || fail "a peer behind tempo-netem exited with an error"
same_final "$dir/far-0.out" "$dir/far-1.out" || fail "the peers behind tempo-netem disagree"
stats=$(grep 'client->server' "$dir/netem.out")
echo "$stats" | grep -q "profile transatlantic with delay 60 ms, loss 3%:" ||
    fail "tempo-netem's statistics do not name the link: $stats"
mean=$(echo "$stats" | sed -n 's/.*client->server.* mean \([0-9]*\)\.[0-9] ms .*|.*server->client.*/\1/p')
[ -n "$mean" ] && [ "$mean" -ge 60 ] || fail "tempo-netem's mean delay is not 60 ms or more: $stats"
echo "  tempo-netem: client->server mean $mean ms"

echo "arena_multiprocess: ok"
