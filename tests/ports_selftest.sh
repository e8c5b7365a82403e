#!/bin/sh
# SPDX-License-Identifier: MIT
# The test scripts' port blocks (tests/support/ports.sh): scripts running at
# once hold different blocks, a block stays held while its owner lives, and
# one whose owner is gone is taken over.
# usage: ports_selftest.sh <work dir>
set -u
work=$1
rm -rf "$work"
mkdir -p "$work"
TMPDIR=$work
export TMPDIR
lib="$(dirname "$0")/support/ports.sh"
fail() { echo "FAIL: $*"; exit 1; }

# eight scripts at once, each holding its block while the others reserve
i=0
while [ $i -lt 8 ]; do
    sh -c '. "$1"; reserve_ports || exit 1; echo $ports > "$2/got.$3"; sleep 2' sh "$lib" "$work" $i &
    i=$((i + 1))
done
wait
[ "$(cat "$work"/got.* | wc -l)" -eq 8 ] || fail "not every script got a block: $(cat "$work"/got.*)"
[ "$(cat "$work"/got.* | sort -u | wc -l)" -eq 8 ] || fail "two scripts share a block: $(cat "$work"/got.* | sort | tr '\n' ' ')"
for p in $(cat "$work"/got.*); do
    [ "$p" -ge 20000 ] && [ $((p + 63)) -le 32767 ] || fail "block $p leaves 20000..32767"
done
echo "  8 scripts at once: 8 blocks ($(cat "$work"/got.* | sort -n | tr '\n' ' '))"

# every block held by a live owner (this shell): none to be had, said so
root=$work/tempo-test-ports
rm -rf "$root"
mkdir -p "$root"
b=0
while [ $b -lt 199 ]; do mkdir "$root/$b" && echo $$ > "$root/$b/pid"; b=$((b + 1)); done
msg=$(sh -c '. "$1"; reserve_ports' sh "$lib") && fail "a block was taken from a live owner"
echo "$msg" | grep -q "no free block" || fail "a full set of blocks said: $msg"
# every block held by an owner that has ended: one is taken over
sh -c 'exit 0' &
dead=$!
wait $dead
b=0
while [ $b -lt 199 ]; do echo $dead > "$root/$b/pid"; b=$((b + 1)); done
got=$(sh -c '. "$1"; reserve_ports && echo $ports' sh "$lib") || fail "no block taken over from an ended owner: $got"
[ -n "$got" ] || fail "reserve_ports gave no port"
ls "$root" | grep -q gone && fail "a taken-over block was left renamed"
echo "  with every block held: refused while the owner lives, taken over ($got) once it has ended"
exit 0
