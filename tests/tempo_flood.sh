#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo-flood's command line and accounting, without a match (the flood of a
# real match is tests/arena_flood.sh, run by `make flood`): --help lists
# every option, usage errors exit 2 naming what is allowed, a 1 s flood at
# 5,000/s sends exactly 5,000 datagrams in about a second, --headers 100 and
# --copies 100 make every datagram of their kind, and the same seed sends
# the same bytes.
# usage: tempo_flood.sh <tempo-flood>
set -u
flood=$1
fail() { echo "FAIL: $*"; exit 1; }
# Nothing listens there: an unconnected UDP socket's sends still succeed.
. "$(dirname "$0")/support/ports.sh"
reserve_ports || exit 1
to=127.0.0.1:$ports

out=$("$flood" --help 2>&1); rc=$?
[ $rc -eq 0 ] || fail "--help exited $rc"
for opt in to rate seconds seed min-size max-size session-id headers datagram copies from; do
    echo "$out" | grep -q -- "--$opt" || fail "--help does not list --$opt"
done
usage_error() { # expected text, then arguments
    want=$1; shift
    msg=$("$flood" "$@" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 2 ] || fail "'$*' exited $rc, not 2"
    echo "$msg" | grep -qF -- "$want" || fail "'$*' said '$msg', without '$want'"
    echo "  $*: $(echo "$msg" | head -n 1)"
}
usage_error "--rate 0: out of range, want 1..1000000" --to $to --rate 0 --seconds 1
usage_error "--to is required" --rate 1 --seconds 1
usage_error "--headers needs --session-id" --to $to --rate 1 --seconds 1 --headers 10
usage_error "--copies needs --datagram" --to $to --rate 1 --seconds 1 --copies 10
usage_error "--min-size 100 is above --max-size 10" --to $to --rate 1 --seconds 1 \
    --min-size 100 --max-size 10
usage_error "--datagram abc: want an even number of hex digits" --to $to --rate 1 --seconds 1 \
    --datagram abc

field() { echo "$2" | grep -o "[ ]$1=[0-9.]*" | cut -d= -f2; }
line=$("$flood" --to $to --rate 5000 --seconds 1) || fail "a 1 s flood failed"
echo "  $line"
[ "$(field sent "$line")" = 5000 ] || fail "sent is not 5000"
[ "$(field errors "$line")" = 0 ] || fail "send errors"
awk -v t="$(field seconds "$line")" 'BEGIN { exit !(t >= 0.99 && t <= 1.5) }' ||
    fail "5,000 datagrams at 5,000/s did not take about 1 s"
line=$("$flood" --to $to --rate 1000 --seconds 1 --session-id 7 --headers 100 --seed 3) ||
    fail "the header flood failed"
[ "$(field headers "$line")" = 1000 ] || fail "--headers 100: $line"
line2=$("$flood" --to $to --rate 1000 --seconds 1 --session-id 7 --headers 100 --seed 3)
[ "$(field bytes "$line")" = "$(field bytes "$line2")" ] || fail "the same seed sent other bytes"
line=$("$flood" --to $to --rate 1000 --seconds 1 --datagram b3010000000100017f --copies 100) ||
    fail "the copy flood failed"
[ "$(field copies "$line")" = 1000 ] && [ "$(field bytes "$line")" = 9000 ] ||
    fail "--copies 100 of a 9-byte datagram: $line"
echo "tempo_flood: ok"
