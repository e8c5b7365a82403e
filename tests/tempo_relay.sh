#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo-relay over real UDP: --help exits 0 and a usage error 2; relay-load
# starts it on loopback, 4 members in 2 matches of 2 connect through the
# handshake, join and play, and every member takes about 60 frames a
# second; the relay's final line says 2 matches of 4 members with no
# datagram dropped.
# usage: tempo_relay.sh <tempo-relay> <relay-load> <work dir>
set -u
relay=$1
load=$2
work=$3
. "$(dirname "$0")/support/ports.sh"
reserve_ports || exit 1
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
fails=0
"$relay" --help >out.txt 2>&1 || { echo "FAIL --help"; fails=$((fails + 1)); }
grep -q -- "--max-matches" out.txt || { echo "FAIL --help lists no --max-matches"; fails=$((fails + 1)); }
"$relay" --port 0 >out.txt 2>&1
[ $? -eq 2 ] || { echo "FAIL --port 0 is no usage error"; fails=$((fails + 1)); }
port=$ports
"$load" --relay-program "$relay" --port "$port" --matches 2 --players 2 --seconds 2 \
    --warmup-seconds 2 >out.txt 2>&1 || { echo "FAIL relay-load"; cat out.txt; fails=$((fails + 1)); }
grep -q "^members 4 (in play 4)" out.txt || { echo "FAIL members not in play:"; cat out.txt; fails=$((fails + 1)); }
frames=$(sed -n 's/.*frames \([0-9.]*\)\/s.*/\1/p' out.txt)
awk -v f="$frames" 'BEGIN { exit !(f >= 50 && f <= 70) }' ||
    { echo "FAIL frames per second per member: $frames"; cat out.txt; fails=$((fails + 1)); }
grep -q "^final .* matches=2 members=4 .* dropped=0 " out.txt ||
    { echo "FAIL the relay's final line:"; cat out.txt; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "tempo_relay: ok"
exit "$fails"
