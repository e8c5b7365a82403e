#!/bin/sh
# SPDX-License-Identifier: MIT
# tempo-token from the command line: --help exits 0; a new key is 32 bytes
# and never written over an existing file; a minted token is
# TEMPO_TOKEN_SIZE (800) bytes, shows its servers, opens with the key and
# the right protocol id and is refused with another id, another key or
# once expired; a relay member's token carries its join; usage errors exit
# 2, file errors 1.
# usage: tempo_token.sh <tempo-token> <work dir>
set -u
tool=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
fails=0
check() { # check WHAT EXPECTED-EXIT COMMAND...
    what=$1 want=$2
    shift 2
    "$@" >out.txt 2>err.txt
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL $what: exit $got, want $want"
        cat out.txt err.txt
        fails=$((fails + 1))
    fi
}
size() { wc -c <"$1" | tr -d ' '; }

check "--help" 0 "$tool" --help
grep -q -- "--expire-seconds" out.txt || { echo "FAIL --help lists no --expire-seconds"; fails=$((fails + 1)); }
check "new key" 0 "$tool" --key-file k --new-key
[ "$(size k)" = 32 ] || { echo "FAIL key is $(size k) bytes"; fails=$((fails + 1)); }
cp k k.orig
check "new key over a file" 1 "$tool" --key-file k --new-key
cmp -s k k.orig || { echo "FAIL the key file was overwritten"; fails=$((fails + 1)); }
check "mint" 0 "$tool" --key-file k --client-id 42 --connect 127.0.0.1:7001 \
    --connect "[::1]:7002" --expire-seconds 60 --protocol-id 0x77 --now 1000 --out t.bin
[ "$(size t.bin)" = 800 ] || { echo "FAIL token is $(size t.bin) bytes"; fails=$((fails + 1)); }
check "show and open" 0 "$tool" --show t.bin --key-file k --protocol-id 0x77 --now 1059
grep -q "^client 42$" out.txt || { echo "FAIL no client 42 in:"; cat out.txt; fails=$((fails + 1)); }
grep -q "^servers 127.0.0.1:7001, \[::1\]:7002$" out.txt || { echo "FAIL servers:"; cat out.txt; fails=$((fails + 1)); }
check "expired" 1 "$tool" --show t.bin --key-file k --protocol-id 0x77 --now 1060
grep -q "expired" err.txt || { echo "FAIL expiry not named"; fails=$((fails + 1)); }
check "another protocol" 1 "$tool" --show t.bin --key-file k --protocol-id 0x78 --now 1001
check "another key" 0 "$tool" --key-file k2 --new-key
check "opened with another key" 1 "$tool" --show t.bin --key-file k2 --protocol-id 0x77 --now 1001
grep -q "authentication failed" err.txt || { echo "FAIL forgery not named"; fails=$((fails + 1)); }
check "missing --connect" 2 "$tool" --key-file k --client-id 1 --expire-seconds 5 --out x.bin
check "expire out of range" 2 "$tool" --key-file k --client-id 1 --connect 127.0.0.1:1 --expire-seconds 0 --out x.bin
check "port 0" 2 "$tool" --key-file k --client-id 1 --connect 127.0.0.1:0 --expire-seconds 5 --out x.bin
check "no key file" 1 "$tool" --key-file nope --client-id 1 --connect 127.0.0.1:1 --expire-seconds 5 --out x.bin
head -c 31 k >short
check "short key file" 1 "$tool" --key-file short --client-id 1 --connect 127.0.0.1:1 --expire-seconds 5 --out x.bin
# A relay member's token: the join (match, players, input size, rate) in its
# private part, read back with the key; without --match the join options
# are a usage error, and a player past --players too.
check "relay token" 0 "$tool" --key-file k --client-id 5 --connect 127.0.0.1:40000 --match 7 \
    --players 3 --player 1,2 --now 1000 --out r.bin
grep -q "relay match 7, players mask 0x06 of 3, 4-byte inputs, 60 frames a second" out.txt ||
    { echo "FAIL minting did not describe the join: $(cat out.txt)"; fails=$((fails + 1)); }
check "show relay token" 0 "$tool" --show r.bin --key-file k --now 1001
grep -q "^relay match 7$" out.txt && grep -q "^players mask 0x06 of 3$" out.txt ||
    { echo "FAIL --show did not read the join: $(cat out.txt)"; fails=$((fails + 1)); }
check "join without --match" 2 "$tool" --key-file k --client-id 5 --connect 127.0.0.1:1 --players 3 --out x.bin
check "player past --players" 2 "$tool" --key-file k --client-id 5 --connect 127.0.0.1:1 --match 7 \
    --players 2 --player 2 --out x.bin
# the old spelling --server still reads
check "old --server" 0 "$tool" --key-file k --client-id 6 --server 127.0.0.1:1 --out o.bin

if [ "$fails" -ne 0 ]; then
    echo "tempo_token: $fails failed"
    exit 1
fi
echo "tempo_token: ok"
