#!/bin/sh
# SPDX-License-Identifier: MIT
# What running tempo-relay as an Agones game server costs its loop:
# relay-load (125 matches of 8 members on loopback, 10 s measured) with
# and without --agones, PAIRS pairs, the first of each pair alternating; under --agones a fresh
# Agones SDK server in local mode answers (health every 2 s, the watch,
# the labels of 125 matches starting). Prints a markdown table of the
# relay's processor time per datagram handled, each run and the medians.
# usage: agones_cost.sh BUILD_DIR SDK_SERVER [PAIRS]
#   BUILD_DIR   a release build (make release: build/release)
#   SDK_SERVER  Agones' sdk-server program (docs/DEPLOY.md says how to get it)
set -u
build=$1
sdk=$2
pairs=${3:-5}
load=$build/tools/tempo-relay/relay-load
relay=$build/tools/tempo-relay/tempo-relay
[ -x "$load" ] && [ -x "$relay" ] || { echo "agones_cost: no relay-load in $build (make release)" >&2; exit 2; }
[ -x "$sdk" ] || { echo "agones_cost: $sdk is not a program" >&2; exit 2; }
work=$(mktemp -d)
port=$((18000 + $$ % 1000 * 2))
udp=$((43000 + $$ % 1000))
run() { # MODE I: one relay-load run, its line in $work/rows
    if [ "$1" = agones ]; then
        env -u FILE -u TIMEOUT -u DELAY "$sdk" --local --http-port $port --grpc-port $((port + 1)) \
            > "$work/sdk.log" 2>&1 &
        sdk_pid=$!
        sleep 2
        AGONES_SDK_HTTP_PORT=$port "$load" --relay-program "$relay" --agones --port $udp --matches 125 \
            --players 8 --seconds 10 --warmup-seconds 4 > "$work/$1.$2" 2>&1
        kill $sdk_pid
        wait $sdk_pid 2>/dev/null
    else
        "$load" --relay-program "$relay" --port $udp --matches 125 --players 8 --seconds 10 \
            --warmup-seconds 4 > "$work/$1.$2" 2>&1
    fi
    us=$(sed -n 's/.*per datagram handled (in + out) \([0-9.]*\) us.*/\1/p' "$work/$1.$2")
    core=$(sed -n 's/^relay cpu [0-9.]* s = \([0-9.]*\)% of one core.*/\1/p' "$work/$1.$2")
    dg=$(sed -n 's/^relay datagrams out [0-9]* (\([0-9]*\)\/s), in [0-9]* (\([0-9]*\)\/s).*/\1 + \2/p' "$work/$1.$2")
    echo "$1 $us" >> "$work/values"
    [ "$1" = agones ] && flag=--agones || flag=--no-agones
    echo "| $2 | \`$flag\` | $us | $core % | $dg |" >> "$work/rows"
}
i=1
while [ $i -le "$pairs" ]; do # which goes first alternates too
    if [ $((i % 2)) = 1 ]; then
        run agones $i
        run plain $i
    else
        run plain $i
        run agones $i
    fi
    i=$((i + 1))
done
median() { grep "^$1 " "$work/values" | awk '{print $2}' | sort -n |
    awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
echo "| run | relay | µs per datagram handled | share of one core | datagrams out + in per second |"
echo "|---|---|---|---|---|"
cat "$work/rows"
a=$(median agones)
p=$(median plain)
echo
echo "median: --agones $a µs, --no-agones $p µs per datagram handled (ratio $(awk -v a="$a" -v p="$p" 'BEGIN { printf "%.2f", a / p }'))"
rm -rf "$work"
