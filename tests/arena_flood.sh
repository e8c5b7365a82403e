#!/bin/sh
# SPDX-License-Identifier: MIT
# A sealed 3-peer tempo-arena match on loopback, peer 0 flooded by
# tempo-flood with RATE hostile datagrams a second (random bytes, and a
# quarter with a well-formed plain header carrying the match's session id)
# from a stranger's address for most of the match. Where raw sockets are
# allowed (root on Linux), a second flood forges peer 1's address at a
# tenth of that rate, so its datagrams pass the address check and meet the
# header checks and the seal. Checks:
#   - every peer exits 0 with the same "final frame=F checksum=C" line;
#   - tempo-flood sent at least 90% of the datagrams asked, about on time;
#   - peer 0 accounted for the stranger's datagrams: dropped as unknown by
#     the session, or dropped by the kernel for want of buffer room;
#   - the forged ones (when sent) were refused as malformed, of another
#     session, replayed or forged, never used: the final line proves
#     nothing moved;
#   - peers 1 and 2, not flooded, dropped nothing from strangers.
# Kept out of `make test` (seconds of two cores at full load): `make flood`
# and `make soak` run it.
# usage: arena_flood.sh <tempo-arena> <tempo-flood> <work dir> [rate] [seconds]
set -u
arena=$1
flood=$2
dir=$3
rate=${4:-20000}
seconds=${5:-8}
mkdir -p "$dir"
fail() { echo "FAIL: $*"; for f in "$dir"/*.out "$dir"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }; done; exit 1; }
# A port range of our own, clear of parallel runs (tests/support/ports.sh).
. "$(dirname "$0")/support/ports.sh"
reserve_ports || exit 1
base=$ports
# The match lasts seconds + 2 at 60 frames a second: the flood covers most of it.
frames=$(((seconds + 2) * 60))
key=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff
printf '%s\n' "$key" > "$dir/match.key"

# field NAME FILE: the value of NAME=... on the last line that has it.
field() { grep -o "[ ]$1=[0-9.]*" "$2" | tail -n 1 | cut -d= -f2; }

echo "sealed 3-peer match, $frames frames; peer 0 flooded at $rate/s for $seconds s"
pids=""
for i in 0 1 2; do
    peers=""
    for j in 0 1 2; do
        [ "$j" = "$i" ] || peers="$peers --peer $j=127.0.0.1:$((base + j))"
    done
    # shellcheck disable=SC2086
    "$arena" --players 3 --player "$i" --port $((base + i)) $peers --frames $frames \
        --seed 5 --input-delay 1 --key-file "$dir/match.key" --timeout 120 \
        > "$dir/peer$i.out" 2> "$dir/peer$i.err" &
    pids="$pids $!"
done
sleep 1
"$flood" --to 127.0.0.1:$base --rate "$rate" --seconds "$seconds" --seed 7 \
    --session-id 1 --headers 25 > "$dir/flood.out" 2> "$dir/flood.err" &
flood_pid=$!
forged=0
spoof_rate=$((rate / 10))
[ "$spoof_rate" -ge 1 ] || spoof_rate=1
if "$flood" --to 127.0.0.1:$((base + 3)) --from 127.0.0.1:$((base + 1)) --rate 1 --seconds 1 \
    > /dev/null 2>&1; then
    forged=1
    "$flood" --to 127.0.0.1:$base --from 127.0.0.1:$((base + 1)) --rate "$spoof_rate" \
        --seconds "$((seconds > 1 ? seconds - 1 : 1))" --seed 8 --session-id 1 --headers 50 \
        > "$dir/forged.out" 2> "$dir/forged.err" &
    forged_pid=$!
fi
wait "$flood_pid" || fail "tempo-flood exited with an error"
[ "$forged" = 0 ] || wait "$forged_pid" || fail "the forging tempo-flood exited with an error"
for p in $pids; do wait "$p" || fail "a peer exited with an error"; done

first=$(grep '^final ' "$dir/peer0.out")
[ -n "$first" ] || fail "peer 0 printed no final line"
for i in 1 2; do
    [ "$(grep '^final ' "$dir/peer$i.out")" = "$first" ] || fail "peer $i disagrees with peer 0"
done
echo "  every peer: $first"

sent=$(field sent "$dir/flood.out")
achieved=$(field rate "$dir/flood.out")
took=$(field seconds "$dir/flood.out")
asked=$((rate * seconds))
echo "  $(cat "$dir/flood.out")"
[ -n "$sent" ] || fail "tempo-flood printed no summary"
[ $((sent * 10)) -ge $((asked * 9)) ] || fail "tempo-flood sent $sent of $asked datagrams"
# on time within half again: on a loaded machine the sender itself runs
# late, but a flood stretched further has stopped being one at its rate
awk -v t="$took" -v s="$seconds" 'BEGIN { exit !(t <= s * 1.5) }' ||
    fail "tempo-flood took $took s for $seconds s of sending"

for i in 0 1 2; do
    grep -q "^tempo-arena: dropped " "$dir/peer$i.err" || fail "peer $i printed no drop counters"
    echo "  peer $i: $(grep '^tempo-arena: dropped ' "$dir/peer$i.err" | sed 's/^tempo-arena: //')"
done
unknown=$(field unknown "$dir/peer0.err")
kdrops=$(field kernel_drops "$dir/peer0.err")
# Every stranger's datagram reached the session (dropped as unknown) or was
# dropped by the kernel; a few may still have been queued at exit.
[ "$unknown" -le "$sent" ] || fail "peer 0 counted $unknown unknown datagrams of $sent sent"
[ $(((unknown + kdrops) * 100)) -ge $((sent * 99)) ] ||
    fail "peer 0 accounted for $unknown + $kdrops kernel drops of $sent stranger datagrams"
for i in 1 2; do
    [ "$(field unknown "$dir/peer$i.err")" = 0 ] || fail "peer $i, not flooded, dropped strangers"
done

if [ "$forged" = 1 ]; then
    echo "  $(cat "$dir/forged.out") (forged from peer 1's address)"
    fsent=$(field sent "$dir/forged.out")
    refused=$(($(field malformed "$dir/peer0.err") + $(field session "$dir/peer0.err") + \
               $(field replay "$dir/peer0.err") + $(field forged "$dir/peer0.err")))
    # A forged datagram the kernel dropped is not refused by the session, and
    # the kernel's drops cannot be told apart by sender: the refusals must
    # cover the forged datagrams less every kernel drop.
    [ "$refused" -le "$fsent" ] || fail "peer 0 refused $refused of $fsent forged datagrams"
    [ $((refused + kdrops)) -ge $((fsent * 99 / 100)) ] ||
        fail "peer 0 refused $refused forged datagrams (and $kdrops kernel drops) of $fsent"
else
    echo "  forged sender: skipped (no raw sockets here: needs root or CAP_NET_RAW on Linux)"
fi
echo "arena_flood: ok"
