#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo-sim --record: every peer of a simulated match writes its replay
# file, the peers' files are the same, and tempo-arena --replay plays each
# to the same final line with every checksum equal; a failing soak
# scenario leaves the replays of its peers behind.
# usage: sim_record.sh <tempo-sim> <tempo-arena> <work dir>
set -u
sim=$1
arena=$2
dir=$3
mkdir -p "$dir"
cd "$dir" || exit 1
rm -f ./*.rep
fail() { echo "FAIL: $*"; exit 1; }

"$sim" --players 3 --frames 1200 --seed 4 --profile continental --record match --quiet ||
    fail "the recorded match failed"
for i in 0 1 2; do [ -s "match-peer$i.rep" ] || fail "no match-peer$i.rep"; done
cmp -s match-peer0.rep match-peer1.rep && cmp -s match-peer0.rep match-peer2.rep ||
    fail "the peers recorded different files"
line=""
for i in 0 1 2; do
    out=$("$arena" --replay "match-peer$i.rep" 2> replay$i.err) || fail "peer $i's file did not play: $(cat replay$i.err)"
    grep -q "every checksum equal" replay$i.err || fail "peer $i: $(cat replay$i.err)"
    [ -z "$line" ] || [ "$out" = "$line" ] || fail "peer $i's file ended '$out', not '$line'"
    line=$out
done
echo "3 peers recorded the same $(wc -c < match-peer0.rep)-byte file; it replays to $line"

# a planted desync fails soak scenario 5; its replays are written
"$sim" --soak 1 --seed 5 --desync-at 300 --soak-frames 900 > soak.out && fail "the planted desync passed the soak"
grep -q "soak-seed5-peerN.rep" soak.out || fail "the soak did not name the replays"
n=$(ls soak-seed5-peer*.rep 2>/dev/null | wc -l)
[ "$n" -eq 3 ] || fail "$n replays of the failed scenario, not 3"
for f in soak-seed5-peer*.rep; do
    "$arena" --replay "$f" > /dev/null 2>&1 || fail "$f did not play"
done
echo "the failed soak scenario left 3 replays that play"
echo "sim_record: ok"
