#!/bin/sh
# SPDX-License-Identifier: MIT
# Peer-to-peer matches behind emulated home routers, on one machine:
# each case builds its own network namespaces (a "wan" with a bridge and
# the relay at 203.0.113.1, a router per NAT with nftables rules, a host
# per player behind it), plays a tempo-arena match introduced by a real
# tempo-relay, checks that every member prints the same final checksum
# and that each pair took the path expected of its two NATs, and deletes
# every namespace it made. Nothing routes out: the namespaces have no link
# to this machine's own network.
#
# NAT types (docs/NAT.md, "The lab"):
#   none  no NAT: the host sits on the wan itself
#   fc    full cone: masquerade, every port forwarded back to the host
#   arc   address-restricted: fc, but only from addresses the host sent to
#   prc   port-restricted: masquerade with conntrack (a typical home router)
#   sym   symmetric: masquerade fully-random (a new port per destination)
#   same  behind the previous player's router (two players, one NAT, no hairpin)
#
# usage: nat_lab.sh <tempo-arena> <tempo-relay> <tempo-token or -> <work dir> [quick|full|flush]
# quick: the cases make test runs, in parallel (well under a minute),
# among them a port-restricted pair whose direct path is cut for 4 s
# mid-match (it moves to the relay and back); full: every pair of types;
# flush: a port-restricted pair whose router's conntrack table is flushed
# mid-match.
# Exit 0 passed, 1 failed, 77 skipped (not root, no nft, no nf_nat).
set -u
arena=$1
relay=$2
token=$3
dir=$4
mode=${5:-quick}
rm -rf "$dir"
mkdir -p "$dir"

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root: network namespaces need it (sudo make test runs it)"
command -v ip >/dev/null 2>&1 || skip "no ip (iproute2): scripts/bootstrap.sh installs it"
command -v nft >/dev/null 2>&1 || skip "no nft (nftables): scripts/bootstrap.sh installs it"

# Short, unique names: several runs may share the machine.
P="tn$(($$ % 100000))"
cleanup() {
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$P"); do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill "$pid" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null
    done
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM HUP

# Can this kernel NAT? A probe ruleset in a namespace of our own.
ip netns add "${P}probe" 2>/dev/null || skip "cannot create a network namespace"
printf 'table ip probe {\n chain post {\n  type nat hook postrouting priority 100;\n  masquerade fully-random\n }\n}\n' |
    ip netns exec "${P}probe" nft -f - 2>"$dir/probe.err" ||
    skip "the kernel has no nf_nat / nf_tables NAT: $(head -n 1 "$dir/probe.err")"
ip netns del "${P}probe"

fail() { echo "FAIL: $*"; exit 1; }

# nat_rules TYPE HOST_ADDR: the router's ruleset (wan0 the public side,
# lanbr the home network).
nat_rules() {
    masq=masquerade
    [ "$1" = sym ] && masq="masquerade fully-random"
    echo "table ip nat {"
    if [ "$1" = fc ] || [ "$1" = arc ]; then
        echo " chain pre {"
        echo "  type nat hook prerouting priority -100"
        echo "  iifname \"wan0\" udp dport 1024-65535 dnat to $2"
        echo " }"
    fi
    echo " chain post {"
    echo "  type nat hook postrouting priority 100"
    echo "  oifname \"wan0\" $masq"
    echo " }"
    echo "}"
    echo "table ip filter {"
    [ "$1" = arc ] && printf ' set seen {\n  type ipv4_addr\n  flags dynamic,timeout\n  timeout 120s\n }\n'
    # A home router drops what comes to itself unasked, silently: no
    # ICMP, and no conntrack entry confirmed that would make a later
    # outgoing probe take another port (Linux confirms a connection only
    # once its first packet is accepted).
    echo " chain to_router {"
    echo "  type filter hook input priority 0; policy accept"
    echo "  iifname \"wan0\" ct state established,related accept"
    echo "  iifname \"wan0\" drop"
    echo " }"
    echo " chain through {"
    echo "  type filter hook forward priority 0; policy drop"
    echo "  ct state established,related accept"
    case $1 in
    fc) echo "  accept" ;;
    arc) echo "  iifname \"lanbr\" update @seen { ip daddr } accept"
         echo "  iifname \"wan0\" ip saddr @seen accept" ;;
    *) echo "  iifname \"lanbr\" accept" ;;
    esac
    echo " }"
    echo "}"
}

# lab_up CASE TYPE...: the namespaces of one case, player i of TYPE i.
# Sets nothing global; names are ${P}${CASE}w (wan), r<i> routers, h<i> hosts.
lab_up() {
    c=$1
    shift
    w="${P}${c}w"
    ip netns add "$w" || return 1
    ip -n "$w" link set lo up
    ip -n "$w" link add br0 type bridge
    ip -n "$w" link set br0 up
    ip -n "$w" addr add 203.0.113.1/24 dev br0
    i=0
    router=""
    for t in "$@"; do
        h="${P}${c}h$i"
        ip netns add "$h" || return 1
        ip -n "$h" link set lo up
        if [ "$t" = none ]; then
            ip -n "$w" link add "p$i" type veth peer name eth0 netns "$h"
            ip -n "$w" link set "p$i" master br0 up
            ip -n "$h" addr add "203.0.113.$((10 + i))/24" dev eth0
            ip -n "$h" link set eth0 up
        else
            if [ "$t" != same ]; then
                r="${P}${c}r$i"
                router=$i
                ip netns add "$r" || return 1
                ip -n "$r" link set lo up
                ip -n "$w" link add "p$i" type veth peer name wan0 netns "$r"
                ip -n "$w" link set "p$i" master br0 up
                ip -n "$r" addr add "203.0.113.$((10 + i))/24" dev wan0
                ip -n "$r" link set wan0 up
                ip -n "$r" link add lanbr type bridge
                ip -n "$r" addr add "10.0.$i.1/24" dev lanbr
                ip -n "$r" link set lanbr up
                ip netns exec "$r" sysctl -qw net.ipv4.ip_forward=1
                nat_rules "$t" "10.0.$i.$((10 + i))" | ip netns exec "$r" nft -f - || return 1
            fi
            [ -n "$router" ] || return 1
            r="${P}${c}r$router"
            ip -n "$r" link add "l$i" type veth peer name eth0 netns "$h"
            ip -n "$r" link set "l$i" master lanbr up
            ip -n "$h" addr add "10.0.$router.$((10 + i))/24" dev eth0
            ip -n "$h" link set eth0 up
            ip -n "$h" route add default via "10.0.$router.1"
        fi
        i=$((i + 1))
    done
}

# expect TYPE_A TYPE_B SAME: the path a pair should end on.
expect() {
    if [ "$3" = 1 ]; then echo direct; return; fi
    a=$1 b=$2
    [ "$a" = same ] && a=prc
    [ "$b" = same ] && b=prc
    case "$a-$b" in
    sym-sym|sym-prc|prc-sym) echo relayed ;;
    *) echo direct ;;
    esac
}

# run_case NAME [flush] TYPE...: one match; prints one line per pair.
run_case() {
    name=$1
    shift
    flush=""
    cut=""
    if [ "$1" = flush ]; then flush=1; shift; fi
    if [ "$1" = cut ]; then cut=1; shift; fi
    move=""
    if [ "$1" = move ]; then move=1; shift; fi
    n=$#
    c="$name"
    lab_up "$c" "$@" > "$dir/$name.lab" 2>&1 || { echo "$name: FAIL lab: $(cat "$dir/$name.lab")"; return; }
    w="${P}${c}w"
    sealed=""
    join="--match 1"
    case $name in *sealed*)
        [ "$token" != - ] && [ -x "$token" ] || { echo "$name: skipped (no tempo-token)"; return; }
        sealed="--key-file $dir/$name.key"
        "$token" --key-file "$dir/$name.key" --new-key > /dev/null || { echo "$name: FAIL key"; return; }
        i=0
        for t in "$@"; do
            "$token" --key-file "$dir/$name.key" --client-id $((i + 1)) --connect 203.0.113.1:40000 \
                --match 4 --players $n --player $i --p2p --out "$dir/$name.t$i" > /dev/null ||
                { echo "$name: FAIL token"; return; }
            i=$((i + 1))
        done ;;
    esac
    # shellcheck disable=SC2086
    ip netns exec "$w" "$relay" --bind 203.0.113.1 --port 40000 --seconds 60 $sealed \
        > "$dir/$name-relay.out" 2> "$dir/$name-relay.err" &
    rpid=$!
    sleep 0.3
    frames=${FRAMES:-300}
    [ -n "$flush" ] && frames=900
    [ -n "$cut" ] && frames=840
    [ -n "$move" ] && frames=720
    pids=""
    i=0
    for t in "$@"; do
        [ -n "$sealed" ] && join="--token-file $dir/$name.t$i"
        # shellcheck disable=SC2086
        ip netns exec "${P}${c}h$i" "$arena" --players "$n" --player $i --relay 203.0.113.1:40000 \
            --p2p $join --port 7000 --frames "$frames" --seed 3 --connect-timeout 10 \
            > "$dir/$name-$i.out" 2> "$dir/$name-$i.err" &
        pids="$pids $!"
        i=$((i + 1))
    done
    if [ -n "$flush" ]; then
        sleep 6
        ip netns exec "${P}${c}r0" conntrack -F > /dev/null 2>&1 ||
            ip netns exec "${P}${c}r0" sh -c 'echo f > /proc/net/nf_conntrack' 2>/dev/null
        echo "$name: conntrack of player 0's router flushed at about 6 s" > "$dir/$name.flush"
    fi
    if [ -n "$cut" ]; then
        # player 0's router drops everything between it and player 1's
        # public address for 4 s (the relay's traffic still passes)
        sleep 5
        printf 'table ip cut {\n chain c {\n  type filter hook forward priority -10; policy accept\n  ip daddr 203.0.113.11 drop\n  ip saddr 203.0.113.11 drop\n }\n}\n' |
            ip netns exec "${P}${c}r0" nft -f -
        sleep 4
        ip netns exec "${P}${c}r0" nft delete table ip cut
        echo "$name: the direct path cut for 4 s from about 5 s" > "$dir/$name.flush"
    fi
    if [ -n "$move" ]; then
        # player 0's router gets a new public address (a mobile network's
        # move): its old mappings are gone, the new ones use the new address
        sleep 5
        r0="${P}${c}r0"
        ip -n "$r0" addr add 203.0.113.50/24 dev wan0
        printf 'flush chain ip nat post\nadd rule ip nat post oifname "wan0" snat to 203.0.113.50\n' |
            ip netns exec "$r0" nft -f -
        ip netns exec "$r0" conntrack -F > /dev/null 2>&1
        echo "$name: player 0's public address moved to 203.0.113.50 at about 5 s" > "$dir/$name.flush"
    fi
    ok=1
    for p in $pids; do wait "$p" || ok=0; done
    kill "$rpid" 2>/dev/null
    wait "$rpid" 2>/dev/null
    want=$(cat "$dir/$name-0.out")
    sums="equal"
    i=0
    for t in "$@"; do
        [ "$(cat "$dir/$name-$i.out")" = "$want" ] || sums="DIFFER"
        i=$((i + 1))
    done
    echo "$want" | grep -q "^final frame=$frames checksum=" || sums="MISSING"
    [ $ok = 1 ] || sums="$sums (a member failed)"
    # each pair, as player a sees player b (a < b)
    a=0
    for ta in "$@"; do
        b=0
        for tb in "$@"; do
            if [ $b -gt $a ]; then
                same=0
                [ "$tb" = same ] && [ $b = $((a + 1)) ] && [ "$ta" != none ] && same=1
                line=$(grep "path of player $b:" "$dir/$name-$a.err" | tail -n 1)
                got=$(echo "$line" | sed -n 's/.*player [0-9]*: \([a-z]*\).*/\1/p')
                after=$(echo "$line" | sed -n 's/.*first direct after \([0-9]*\) ms.*/\1 ms/p')
                rtt=$(echo "$line" | sed -n 's/.*rtt direct \([0-9.]*\) ms, relay \([0-9.]*\) ms.*/rtt direct \1 ms, relay \2 ms/p')
                moves=$(echo "$line" | sed -n 's/.*; upgrades \([0-9]*\), downgrades \([0-9]*\).*/up \1 down \2/p')
                want_path=$(expect "$ta" "$tb" $same)
                verdict=ok
                [ "$got" = "$want_path" ] || verdict="FAIL (want $want_path)"
                # cut: back on the direct path, after one move to the relay and one back
                [ -n "$cut" ] && [ "$moves" != "up 1 down 1" ] && verdict="FAIL (want up 1 down 1)"
                # move: the relay found again from the new address
                [ -n "$move" ] && ! grep -q "relay reconnects 1" "$dir/$name-0.err" &&
                    verdict="FAIL (player 0 did not connect to the relay again once)"
                [ "$sums" = equal ] || verdict="FAIL (checksums $sums)"
                printf '%-12s %d-%d %-4s %-4s %-8s %-8s %-36s %-14s checksums %s: %s\n' "$name" $a $b \
                    "$ta" "$tb" "${got:-none}" "${after:--}" "${rtt:-}" "${moves:-}" "$sums" "$verdict"
            fi
            b=$((b + 1))
        done
        a=$((a + 1))
    done
}

case $mode in
quick)
    cases="${NAT_LAB_CASES:-prc-sealed:prc,prc sym-sym:sym,sym sym-prc:sym,prc fc-sym:fc,sym arc-sym:arc,sym
           same-nat:prc,same none-prc:none,prc three:prc,fc,sym cut-prc:cut,prc,prc
           move-sealed:move,prc,prc}" ;;
full)
    cases=""
    for a in none fc arc prc sym; do
        for b in none fc arc prc sym; do
            case " $cases " in *" $b-$a:"*) continue ;; esac
            cases="$cases $a-$b:$a,$b"
        done
    done
    cases="$cases same-nat:prc,same same-sym:sym,same three:prc,fc,sym" ;;
flush)
    cases="flush-prc:flush,prc,prc" ;;
*)
    echo "usage: nat_lab.sh ARENA RELAY TOKEN DIR [quick|full|flush]" >&2
    exit 2 ;;
esac

printf '%-12s %-3s %-4s %-4s %-8s %-8s %-36s %-14s %s\n' case a-b "A" "B" path direct-in \
    "round trips (last probe)" moves result
SECONDS_START=$(date +%s)
for cs in $cases; do
    name=${cs%%:*}
    types=$(echo "${cs#*:}" | tr ',' ' ')
    # shellcheck disable=SC2086
    run_case "$name" $types > "$dir/$name.result" 2>&1 &
done
wait
cat "$dir"/*.result
[ -f "$dir"/*.flush ] 2>/dev/null && cat "$dir"/*.flush
echo "nat_lab: $mode took $(($(date +%s) - SECONDS_START)) s"
if grep -q "FAIL" "$dir"/*.result; then
    for f in "$dir"/*.err; do
        grep -q "path of\|final" "$f" 2>/dev/null && continue
        echo "--- $f"; tail -n 5 "$f"
    done
    exit 1
fi
echo "nat_lab: ok"
