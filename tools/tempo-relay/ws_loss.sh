#!/bin/sh
# SPDX-License-Identifier: MIT
# ws_loss.sh — what a WebSocket costs under loss (docs/BROWSER.md): one
# relay match of three tempo-arena members, two over UDP and one over a
# WebSocket, with a share of every packet between the members and the relay
# dropped at random (nftables in a network namespace, both directions), and
# each member's own account of the match: inputs of its own the relay had
# to substitute, stalls and skips, rollbacks and the deepest, ticks spent
# waiting. UDP loses datagrams, which tempo's redundant inputs cover; TCP
# loses none but holds every later byte until the lost segment is resent
# (head-of-line blocking).
#
#   sh tools/tempo-relay/ws_loss.sh BUILD_DIR [LOSS_PER_MILLE [FRAMES [RUNS]]]
#
# BUILD_DIR holds tempo-relay and tempo-arena (a release build); loss 20
# (2%), 1800 frames, 3 runs by default. Needs root, ip and nft (the
# namespace 198.51.100.0/24 is made and deleted here; nothing routes out).
set -eu
build=$1
loss=${2:-20}
frames=${3:-1800}
runs=${4:-3}
relay=$build/tools/tempo-relay/tempo-relay
arena=$build/examples/arena/tempo-arena
[ -x "$relay" ] && [ -x "$arena" ] || { echo "ws_loss: no tempo-relay or tempo-arena in $build" >&2; exit 2; }
ns=tempo-wsloss-$$
dir=$(mktemp -d)
cleanup() {
    ip link del twl0-$$ 2>/dev/null || true
    ip netns del $ns 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT INT TERM
ip netns add $ns
ip link add twl0-$$ type veth peer name twl1-$$
ip link set twl1-$$ netns $ns
ip addr add 198.51.100.1/24 dev twl0-$$
ip link set twl0-$$ up
ip netns exec $ns ip addr add 198.51.100.2/24 dev twl1-$$
ip netns exec $ns ip link set twl1-$$ up
ip netns exec $ns ip link set lo up
ip netns exec $ns nft -f - <<NFT
table inet loss {
    chain in { type filter hook input priority 0; iifname "twl1-$$" numgen random mod 1000 < $loss drop; }
    chain out { type filter hook output priority 0; oifname "twl1-$$" numgen random mod 1000 < $loss drop; }
}
NFT
echo "loss $(awk "BEGIN { printf \"%.1f\", $loss / 10 }")% each way on every packet, $frames frames, $runs runs"
echo
echo "| run | member | own inputs substituted | stalls | skipped | rollbacks | deepest | waiting ticks | rtt ms |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|"
r=1
while [ $r -le $runs ]; do
    ip netns exec $ns "$relay" --port 40500 --ws-port 40501 --bind 198.51.100.2 --seconds 120 \
        --stats-seconds 600 > "$dir/relay.out" 2>&1 &
    rp=$!
    sleep 0.5
    for i in 0 1 2; do
        where=198.51.100.2:40500
        [ $i = 2 ] && where=ws://198.51.100.2:40501
        "$arena" --players 3 --player $i --relay $where --match $r --frames $frames --seed $r \
            --connect-timeout 20 > "$dir/m$i.out" 2> "$dir/m$i.err" &
        eval "p$i=\$!"
    done
    # shellcheck disable=SC2154
    wait $p0 $p1 $p2 || true
    kill $rp 2>/dev/null || true
    wait $rp 2>/dev/null || true
    for i in 0 1 2; do
        kind=UDP
        [ $i = 2 ] && kind=WebSocket
        sed -n 's/^tempo-arena: relay: .*(\([0-9]*\) of ours), rtt \([0-9.]*\) ms, stalls \([0-9]*\), skipped \([0-9]*\), rollbacks \([0-9]*\) (deepest \([0-9]*\)), waits \([0-9]*\).*/\1 \3 \4 \5 \6 \7 \2/p' \
            "$dir/m$i.err" | while read -r own st sk rb dp wt rtt; do
            echo "| $r | $i $kind | $own | $st | $sk | $rb | $dp | $wt | $rtt |"
        done
    done
    [ "$(cat "$dir/m0.out")" = "$(cat "$dir/m2.out")" ] || echo "| $r | (the members' final lines differ) |"
    r=$((r + 1))
done
